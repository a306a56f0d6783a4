// The two bundled contracts the server answers by: generated (`npm run generate`) and linted
// against OpenAPI before they are read here, once per process.
import { readFileSync } from 'node:fs';
import type { Api } from '../http/routes.js';
import { projectFile } from '../shared/project-root.js';
import type { OpenApiDocument } from './document.js';

let contracts: Record<Api, OpenApiDocument> | undefined;

/** Both bundled contracts, read once per process. */
export function loadContracts(): Record<Api, OpenApiDocument> {
  contracts ??= {
    checkout: readContract('generated/checkout.openapi.json'),
    commerce: readContract('generated/commerce.openapi.json'),
  };
  return contracts;
}

/** A bundled contract: generated, and linted against OpenAPI, before it is read here. */
function readContract(file: string): OpenApiDocument {
  return JSON.parse(readFileSync(projectFile(file), 'utf8')) as OpenApiDocument;
}
