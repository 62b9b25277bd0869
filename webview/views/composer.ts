// The prompt box: Enter sends, Shift+Enter adds a newline, Up in an empty box recalls the last
// prompt; Stop while the agent runs.
import { button, setDisabled } from "../ui/components";
import { el } from "../ui/dom";

const PLACEHOLDER = "Ask Yoke… (Enter to send, Shift+Enter for a new line)";

export class Composer {
  readonly root: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLElement;
  private readonly stopButton: HTMLElement;
  private running = false;
  /** Another process writes the session shown: nothing is sent or stopped from here. */
  private readOnly = false;
  /** The last prompt sent, recalled with Up in an empty box. */
  private last = "";

  constructor(onSend: (text: string) => void, onStop: () => void) {
    this.input = el("textarea", {
      class: "prompt-input",
      "data-testid": "prompt-input",
      rows: "3",
      placeholder: PLACEHOLDER,
      "aria-label": "Prompt",
    });
    const submit = () => {
      const text = this.input.value.trim();
      if (!text || this.running || this.readOnly) return;
      onSend(text);
      this.last = text;
      this.input.value = "";
      this.autosize();
    };
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        submit();
      } else if (e.key === "ArrowUp" && !this.input.value && this.last) {
        e.preventDefault();
        this.input.value = this.last;
        this.autosize();
      }
    });
    this.input.addEventListener("input", () => this.autosize());
    this.sendButton = button({ icon: "send", title: "Send (Enter)", testid: "send", onClick: submit });
    this.stopButton = button({ icon: "debug-stop", title: "Stop", testid: "stop", onClick: onStop });
    this.stopButton.hidden = true;
    this.root = el("div", { class: "composer" }, [this.input, el("div", { class: "composer-actions" }, [this.stopButton, this.sendButton])]);
  }

  setRunning(running: boolean): void {
    this.running = running;
    this.update();
  }

  setReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
    this.input.placeholder = readOnly ? "Read-only: another process is working on this session (see above)." : PLACEHOLDER;
    this.update();
  }

  private update(): void {
    this.stopButton.hidden = !this.running || this.readOnly;
    setDisabled(this.sendButton, this.running || this.readOnly);
  }

  /** Puts back a prompt that could not be sent (only into an empty box: never overwrite typing). */
  restore(text: string): void {
    if (this.input.value.trim()) return;
    this.input.value = text;
    this.autosize();
  }

  focus(): void {
    this.input.focus();
  }

  private autosize(): void {
    this.input.style.height = "auto";
    this.input.style.height = `${Math.min(this.input.scrollHeight, 240)}px`;
  }
}
