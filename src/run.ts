import { flushCompileCache, getCompileCacheDir } from 'node:module';
import { startSlackApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { systemCodeOf } from './error-cause.ts';
import { SUBCOMMAND_NAMES } from './features/index.ts';
import { createLogger } from './log.ts';

// The app as a process, once main.ts has checked the Node: config -> logger -> the app (app.ts,
// the composition root) started, and a clean stop on a signal.
async function main(env: NodeJS.ProcessEnv): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env, SUBCOMMAND_NAMES);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for what each variable means.\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, secrets: config.secrets });
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  const running = await startSlackApp({ config, logger });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    try {
      // SIGTERM comes from an orchestrator, whose load balancer needs the delay to notice;
      // SIGINT from a person at a terminal, who does not.
      await running.stop(signal === 'SIGTERM' ? config.shutdownDelayMs : 0);
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'stop failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

// `.env` is read when present (variables already in the environment win); a deployment that
// sets the environment itself needs no file.
function loadDotEnv(): void {
  try {
    process.loadEnvFile('.env');
  } catch (error) {
    if (systemCodeOf(error, 1) !== 'ENOENT') throw error;
  }
}

/**
 * The image's build runs the entry once with this flag (the Dockerfile): by then every module of
 * the bundle is loaded and compiled, so Node's compile cache holds them, and nothing is started.
 */
const FILL_COMPILE_CACHE = '--fill-compile-cache';

if (process.argv.includes(FILL_COMPILE_CACHE)) {
  if (getCompileCacheDir() === undefined) {
    process.stderr.write('NODE_COMPILE_CACHE is not set (or the directory cannot be written)\n');
    process.exit(1);
  }
  flushCompileCache();
  process.stdout.write(`compile cache filled: ${getCompileCacheDir()}\n`);
  process.exit(0);
}
loadDotEnv();
main(process.env).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`The app could not start: ${message}\n`);
  process.exit(1);
});
