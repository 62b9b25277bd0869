/** Something that stops when disposed: a listener, a watcher. A leaf module, so the ports and the port types they name can all use it. */
export interface Disposable {
  dispose(): void;
}
