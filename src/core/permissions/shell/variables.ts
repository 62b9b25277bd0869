/**
 * Variables whose value changes which program runs, what it loads, or how the shell expands words.
 * `BASH_CMDS` is bash's table of command names to files (`BASH_CMDS[ls]=/bin/rm; ls -rf src` runs
 * rm) and `BASH_ALIASES` its alias table (red team round 10). Options read from the environment
 * (`ZIPOPT='-TT "cmd"'` makes zip run cmd; `LESS`, `XZ_OPT`, `RSYNC_RSH`) count too.
 */
export function isDangerousVariable(name: string): boolean {
  return (
    /^(PATH|IFS|ENV|BASH_ENV|CDPATH|PS0|PS1|PS2|PS3|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|HOME|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|RUBYOPT|RUBYLIB|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONINSPECT|PYTHONUSERBASE|PAGER|MANPAGER|EDITOR|VISUAL|BROWSER|SHELL|TMPDIR|RIPGREP_CONFIG_PATH|GREP_OPTIONS|LESSOPEN|LESSCLOSE|GCONV_PATH|SSH_ASKPASS|SUDO_ASKPASS|MAKEFLAGS|GNUMAKEFLAGS|MFLAGS|MAKEFILES|OPENSSL_CONF|CC|CXX|CPP|LD|AR|AS|FC|RUSTC|RUSTDOC|GOFLAGS|CGO_CFLAGS|CGO_LDFLAGS|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|MAVEN_OPTS|GRADLE_OPTS|DOCKER_HOST|KUBECONFIG|XDG_CONFIG_HOME|XDG_DATA_HOME|XDG_CONFIG_DIRS|WGETRC|CURL_HOME|INPUTRC|TERMINFO|HISTFILE|BASH_XTRACEFD|EXECIGNORE|FIGNORE|POSIXLY_CORRECT|LC_ALL_OVERRIDE|PKG_CONFIG_PATH|GCC_EXEC_PREFIX|COMPILER_PATH|JAVA_HOME|ZDOTDIR|PWD|OLDPWD|BASH_CMDS|BASH_ALIASES|BASH_LOADABLES_PATH|BASH_COMPAT|ZIPOPT|UNZIP|UNZIPOPT|ZIPINFO|ZIPINFOOPT|GZIP|BZIP|BZIP2|XZ_OPT|XZ_DEFAULTS|LESS|LESSKEY|LESSKEYIN|MORE|MANOPT|RSYNC_RSH|RSYNC_CONNECT_PROG)$/.test(
      name,
    ) ||
    /^(LD_|DYLD_|GIT_|BASH_FUNC_|NPM_CONFIG_|npm_config_|YARN_(SCRIPT_SHELL|RC_FILENAME)|PYTEST_ADDOPTS)/.test(name) ||
    /_(COMMAND|CMD|EDITOR|PAGER|PROGRAM|SHELL|WRAPPER|RUNNER|HOOK|OPTIONS|OPTS|PRELOAD|PLUGINS?|LAUNCHER)$/.test(name)
  );
}

/**
 * A pager variable set to `cat` or to nothing changes nothing that runs: git runs no pager at all for
 * either (pager.c), other programs run `cat` from the same PATH (agents write `GIT_PAGER=cat git log`,
 * `PAGER=cat git diff`). Only a literal value set with `=` (not `+=`, which appends to the value the
 * variable already has, and not an array element).
 */
export function isHarmlessSetting(name: string, value: { value: string; dynamic: boolean } | undefined, appends = false): boolean {
  return !appends && /^(PAGER|GIT_PAGER)$/.test(name) && (value === undefined || (!value.dynamic && (value.value === "" || value.value === "cat")));
}

/**
 * Variables a read-only command (or a workspace file command) may be given without asking: locale,
 * time zone, terminal and colour settings, and the names projects set for their own tools that no
 * read-only program reads (`CI=1`, `NODE_ENV=test`, `RUST_BACKTRACE=1`, `GOOS=linux`… — red team U,
 * session 20: `export CI=true; git status` asked). None of them is one isDangerousVariable names.
 */
export const QUIET_VARIABLE =
  /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|COLORTERM|COLUMNS|LINES|LS_COLORS|GREP_COLORS?|TIME_STYLE|QUOTING_STYLE|JQ_COLORS|CI|NODE_ENV|DEBUG|NODE_NO_WARNINGS|RUST_LOG|RUST_BACKTRACE|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTHONIOENCODING|GOOS|GOARCH|CGO_ENABLED)$/;
