#!/usr/bin/env node
// `npm run openapi` step 2: the Postman collection generated from the committed OpenAPI document.
//   node scripts/openapi-postman.js openapi/openapi.json postman/acm-runtime.openapi.postman_collection.json
// The converter draws ids and fills schemas without examples at random; the collection is committed and checked to
// be up to date (apps/runtime-acm/src/http/openapi.spec.ts), so what is random is left out: ids (Postman makes them
// on import), saved example responses, and request bodies other than the document's own first example.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const Converter = require('openapi-to-postmanv2');

/** ONAP's default credentials and the runtime's default address (README), so the collection runs as imported. */
const VARIABLES = [
  { key: 'baseUrl', value: 'http://localhost:6969/onap/policy/clamp/acm' },
  { key: 'username', value: 'runtimeUser' },
  { key: 'password', value: 'zb!XztG34' },
  { key: 'compositionId', value: '' },
  { key: 'instanceId', value: '' },
  { key: 'participantId', value: '' },
];

/** The document's examples stand for ids a runtime hands out; in the collection they are these variables. */
const EXAMPLE_IDS = { '5e1f0000-0000-4000-8000-00000000c0de': '{{compositionId}}' };

function convert(text) {
  const options = {
    folderStrategy: 'Tags',
    parametersResolution: 'Example',
    schemaFaker: false,
    enableOptionalParameters: false,
    alwaysInheritAuthentication: true,
    requestNameSource: 'Fallback',
  };
  return new Promise((resolve, reject) => {
    Converter.convert({ type: 'string', data: text }, options, (error, result) => {
      if (error) {
        reject(error);
      } else if (!result.result) {
        reject(new Error(`openapi-to-postmanv2: ${result.reason}`));
      } else {
        resolve(result.output[0].data);
      }
    });
  });
}

function withoutIds(node) {
  if (Array.isArray(node)) {
    node.forEach(withoutIds);
  } else if (node !== null && typeof node === 'object') {
    delete node.id;
    delete node._postman_id;
    Object.values(node).forEach(withoutIds);
  }
  return node;
}

function firstExample(operation) {
  const media = operation?.requestBody?.content?.['application/json'];
  const examples = Object.values(media?.examples ?? {});
  return examples.length > 0 ? examples[0].value : media?.example;
}

function requests(items) {
  return items.flatMap((item) => (item.item ? requests(item.item) : [item]));
}

/** True for an operation that answers an endless server-sent event stream, which a collection run would wait on forever. */
function isStream(operation) {
  return Object.values(operation.responses ?? {}).some((response) => 'text/event-stream' in (response.content ?? {}));
}

/** The document without its streaming operations: Postman and newman read an answer to its end. */
function withoutStreams(document) {
  const paths = {};
  for (const [path, item] of Object.entries(document.paths)) {
    const kept = Object.fromEntries(
      Object.entries(item).filter(([, operation]) => typeof operation !== 'object' || !isStream(operation)),
    );
    if (Object.keys(kept).some((key) => ['get', 'put', 'post', 'delete', 'patch'].includes(key))) {
      paths[path] = kept;
    }
  }
  return { ...document, paths };
}

async function postmanCollection(document) {
  const collection = withoutIds(await convert(JSON.stringify(withoutStreams(document))));
  collection.variable = VARIABLES.map((variable) => ({ ...variable, type: 'string' }));
  collection.auth = {
    type: 'basic',
    basic: [
      { key: 'username', value: '{{username}}', type: 'string' },
      { key: 'password', value: '{{password}}', type: 'string' },
    ],
  };
  for (const item of requests(collection.item)) {
    const path = `/${item.request.url.path.map((part) => part.replace(/^:(.*)$/, '{$1}')).join('/')}`;
    const operation = document.paths[path]?.[item.request.method.toLowerCase()];
    item.response = [];
    for (const variable of item.request.url.variable ?? []) {
      variable.value = `{{${variable.key}}}`;
    }
    if (item.request.body?.mode === 'raw') {
      const example = firstExample(operation);
      const raw = example === undefined ? '' : JSON.stringify(example, null, 2);
      item.request.body.raw = Object.entries(EXAMPLE_IDS).reduce((text, [id, name]) => text.split(id).join(name), raw);
    }
  }
  return collection;
}

async function main([input, output]) {
  if (input === undefined || output === undefined) {
    process.stderr.write('usage: node scripts/openapi-postman.js OPENAPI.json COLLECTION.json\n');
    return 2;
  }
  const collection = await postmanCollection(JSON.parse(readFileSync(input, 'utf8')));
  writeFileSync(output, `${JSON.stringify(collection, null, 2)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exitCode = 1;
  },
);
