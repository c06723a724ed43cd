// Command lines for display and copy-paste. Pure; tests in shell.test.ts.

/** Quote one argument the way a POSIX shell needs it: bare when safe, else in single quotes. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export const shellJoin = (argv: readonly string[]): string => argv.map(shellQuote).join(' ');
