/**
 * What the app says, before it loads anything else, when the Node running it is older than the
 * one package.json's `engines.node` asks for (`>=major[.minor[.patch]]`); undefined when it is
 * new enough. Node 20 would otherwise fail on the first import of node:sqlite with a message
 * naming neither the version nor what to run.
 */
export function olderNodeSentence(running: string, engines: string): string | undefined {
  const wanted = versionParts(/^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines.trim())?.[1]);
  if (wanted === undefined)
    throw new Error(`package.json engines.node is not ">=x.y.z": ${engines}`);
  if (!isOlder(versionParts(running.replace(/^v/, '')) ?? [], wanted)) return undefined;
  return `This app needs Node.js ${wanted.join('.')} or newer, and this is ${running}: run it with \`npm start\` after \`npm ci\`, which installs the project's own Node.\n`;
}

/** Compared part by part from the major: the first part that differs decides. */
function isOlder(have: readonly number[], wanted: readonly number[]): boolean {
  for (const [index, part] of wanted.entries()) {
    const mine = have[index] ?? 0;
    if (mine !== part) return mine < part;
  }
  return false;
}

function versionParts(text: string | undefined): number[] | undefined {
  if (text === undefined || !/^\d+(\.\d+)*$/.test(text)) return undefined;
  return text.split('.').map(Number);
}
