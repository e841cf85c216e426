/** Writes a fenced code block whose fence is longer than any backtick run inside the code. */
export function renderFence(code: string, language: string | null, meta: string | null): string {
  let longestRun = 2;
  for (const run of code.matchAll(/`{3,}/g)) longestRun = Math.max(longestRun, run[0].length);
  const fence = '`'.repeat(longestRun + 1);
  const info = [language, meta].filter((part): part is string => Boolean(part)).join(' ');
  return `${fence}${info}\n${code}\n${fence}`;
}
