// The image's HEALTHCHECK: asks the running app whether it is ready (see /readyz) and exits 0 or
// 1. Plain node, no config: it reads the same PORT and METRICS_PORT the app listens on.

const port = process.env.METRICS_PORT || process.env.PORT || '3000';

try {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, {
    signal: AbortSignal.timeout(4_000),
  });
  process.exitCode = response.ok ? 0 : 1;
} catch {
  process.exitCode = 1;
}
