/** Variables whose value changes which program runs or what it loads. */
export function isDangerousVariable(name: string): boolean {
  return (
    /^(PATH|IFS|ENV|BASH_ENV|CDPATH|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|HOME|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PAGER|MANPAGER|EDITOR|VISUAL|BROWSER|SHELL|TMPDIR)$/.test(name) ||
    /^(LD_|DYLD_|GIT_|BASH_FUNC_|NPM_CONFIG_|npm_config_)/.test(name) ||
    /_(COMMAND|CMD|EDITOR|PAGER|PROGRAM|SHELL)$/.test(name)
  );
}
