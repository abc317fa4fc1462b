import type { Reporter, Vitest } from 'vitest/node';

/**
 * Names the Node the suite runs on, first: the project pins one (.nvmrc, the `node` package in
 * devDependencies), and a run on the machine's own Node instead would test something else.
 */
export class NodeVersionReporter implements Reporter {
  onInit(vitest: Vitest): void {
    vitest.logger.log(`Node ${process.version} (${process.execPath})`);
  }
}
