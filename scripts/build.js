#!/usr/bin/env node
/**
 * `npm run build`: dist from an empty directory, one line as each step starts and one as it ends with its duration,
 * so a first `npm start` never sits silent for a minute. The web console (vite) does not read the server's output,
 * so it builds beside the TypeScript compile; the embedded database snapshot runs the compiled server, so it comes
 * after both. A failed step stops the build with its exit code.
 */
'use strict';

const { spawn } = require('node:child_process');
const { rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

/**
 * The build: stages run one after the other, the steps of a stage side by side, the commands of a step in order.
 * @type {ReadonlyArray<ReadonlyArray<{ name: string; commands: ReadonlyArray<ReadonlyArray<string>> }>>}
 */
const BUILD = [
  [
    {
      name: 'TypeScript (tsc, tsc-alias)',
      commands: [
        [bin('tsc'), '-p', 'tsconfig.build.json'],
        [bin('tsc-alias'), '-p', 'tsconfig.build.json'],
      ],
    },
    {
      name: 'web console (vite)',
      commands: [[bin('vite'), 'build', '--logLevel', 'warn', '--config', 'apps/console/vite.config.mjs']],
    },
  ],
  [
    {
      name: 'embedded database snapshot',
      commands: [[process.execPath, 'dist/apps/runtime-acm/src/cli/embedded-snapshot.js', 'dist/pglite-snapshot']],
    },
  ],
];

/** Runs one command; resolves on exit 0, rejects with the exit code otherwise. */
function run(command, cwd) {
  return new Promise((resolve, reject) => {
    const [file, ...args] = command;
    const child = spawn(file, args, { cwd, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) {
        resolve();
      } else {
        const error = new Error(`${command.join(' ')} failed (${signal ?? `exit ${code}`})`);
        error.exitCode = code ?? 1;
        reject(error);
      }
    });
  });
}

const seconds = (startedAt) => `${Math.round((performance.now() - startedAt) / 100) / 10} s`;

/**
 * Runs the stages, printing `build i/n <name> …` as a step starts and `build i/n <name> <duration>` as it ends (or
 * `failed after <duration>`). `print` receives each line.
 */
async function runBuild(stages, { cwd = root, print = (line) => console.error(line) } = {}) {
  const total = stages.reduce((count, stage) => count + stage.length, 0);
  const buildStartedAt = performance.now();
  let index = 0;
  for (const stage of stages) {
    const numbered = stage.map((step) => ({ ...step, label: `build ${(index += 1)}/${total} ${step.name}` }));
    const results = await Promise.allSettled(
      numbered.map(async (step) => {
        const startedAt = performance.now();
        print(`${step.label} …`);
        try {
          for (const command of step.commands) {
            await run(command, cwd);
          }
        } catch (error) {
          print(`${step.label} failed after ${seconds(startedAt)}`);
          throw error;
        }
        print(`${step.label} ${seconds(startedAt)}`);
      }),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      throw failed.reason;
    }
  }
  print(`build done in ${seconds(buildStartedAt)}`);
}

module.exports = { BUILD, runBuild };

if (require.main === module) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  runBuild(BUILD).catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(typeof error.exitCode === 'number' ? error.exitCode : 1);
  });
}
