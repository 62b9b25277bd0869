// Webview entry point (bundled to dist/webview.js, its CSS to dist/webview.css).
import "./styles.css";
import { App } from "./app";
import { connectHost } from "./host-api";
import { registerComponents } from "./ui/components";

registerComponents();
const root = document.getElementById("yoke-root");
if (root) new App(root, connectHost()).start();
