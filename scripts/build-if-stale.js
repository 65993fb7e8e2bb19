#!/usr/bin/env node
/**
 * Builds dist only when it is missing or out of date (`npm start`, `npm test`): a full build takes tens of
 * seconds, a check a few milliseconds. The build's inputs (every file under apps/ and libs/, the tsconfig
 * files, package.json and package-lock.json) are fingerprinted by path, size and modification time; the
 * fingerprint of the last successful build is kept in dist/.build-fingerprint. Any added, removed or
 * changed input, or a missing stamp, means a full `npm run build` (which starts from an empty dist).
 * `--force` builds anyway.
 */
'use strict';

const { createHash } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const SOURCE_DIRECTORIES = ['apps', 'libs'];
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
const STAMP = join(root, 'dist', '.build-fingerprint');

function* walk(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      yield* walk(path);
    } else if (entry.isFile()) {
      yield path;
    }
  }
}

function fingerprint() {
  const files = [
    ...SOURCE_DIRECTORIES.flatMap((directory) => [...walk(join(root, directory))]),
    ...INPUT_FILES.map((file) => join(root, file)).filter((file) => existsSync(file)),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const stat = statSync(file);
    hash.update(`${relative(root, file)}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const current = fingerprint();
const previous = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : null;
if (previous === current && !process.argv.includes('--force')) {
  process.exit(0);
}
console.error(previous === null ? 'dist is missing: building' : 'sources changed since the last build: building');
execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
writeFileSync(STAMP, `${current}\n`);
