// The change review's glue (src/host/review): the buttons of the panel's pending-changes list,
// and the list posted again whenever it changes.
import type { Disposable } from "../../core/ports";
import type { HostToWebview, WebviewToHost } from "../../protocol/messages";
import type { ReviewFeature } from "../review";

export async function reviewAction(review: ReviewFeature | undefined, msg: Extract<WebviewToHost, { type: "reviewAction" }>, post: (msg: HostToWebview) => void): Promise<void> {
  if (!review) return;
  if (msg.action === "accept") return review.accept(msg.editId);
  if (msg.action === "reject") return review.reject(msg.editId, msg.message);
  if (msg.action === "openDiff") return review.openDiff(msg.editId);
  const problem = await review.revert(msg.editId);
  if (problem) post({ type: "error", message: problem });
}

/** Posts the pending-changes list when it changes. */
export function postReviewsOnChange(review: ReviewFeature, post: (msg: HostToWebview) => void): Disposable {
  let last = "";
  return review.onDidChange(() => {
    const items = review.list();
    const json = JSON.stringify(items);
    if (json !== last) post({ type: "reviews", items });
    last = json;
  });
}
