// Checks an answer against the bundled contract: its status is documented, the documented
// headers are there with valid values, and the body matches the documented media type and
// schema. Independent of the server's own validator: Ajv (JSON Schema 2020-12, as OpenAPI 3.1
// uses) with ajv-formats, straight over generated/*.openapi.json.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { deref, escapePointer } from '../server/openapi/document.js';
import type { Api } from './api.js';

type Json = Record<string, any>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface OperationInfo {
  api: Api;
  operationId: string;
  method: string;
  path: string;
  operation: Json;
  /** Path-level parameters of the path item. */
  pathParameters: Json[];
}

const escape = escapePointer;

/**
 * The two contracts, from `generated/` one level above this module: the repository's root for the
 * sources; for the till-conformance package's bundle (`dist/bin/`), `dist/`, where its build copies them.
 */
export function loadBundledContracts(root = new URL('../', import.meta.url)): Record<Api, Json> {
  return {
    checkout: JSON.parse(readFileSync(new URL('generated/checkout.openapi.json', root), 'utf8')),
    commerce: JSON.parse(readFileSync(new URL('generated/commerce.openapi.json', root), 'utf8')),
  };
}

export class ContractValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly operations: OperationInfo[] = [];
  private readonly byId = new Map<string, OperationInfo>();

  constructor(readonly docs: Record<Api, Json>) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    // OpenAPI's own formats, which JSON Schema does not define: accept any value of the type.
    for (const format of ['int32', 'int64', 'float', 'double', 'binary', 'byte', 'password']) this.ajv.addFormat(format, true);
    for (const api of ['checkout', 'commerce'] as const) {
      this.ajv.addSchema(docs[api], `${api}.json`);
      for (const [path, rawItem] of Object.entries<Json>(docs[api].paths ?? {})) {
        const item = this.deref(api, rawItem);
        for (const method of METHODS) {
          if (!item[method]) continue;
          const info: OperationInfo = {
            api,
            operationId: item[method].operationId,
            method: method.toUpperCase(),
            path,
            operation: item[method],
            pathParameters: item.parameters ?? [],
          };
          this.operations.push(info);
          this.byId.set(info.operationId, info);
        }
      }
    }
  }

  operation(operationId: string): OperationInfo {
    const info = this.byId.get(operationId);
    if (!info) throw new Error(`No operation ${operationId} in the contracts.`);
    return info;
  }

  /** Resolves local `$ref`s of one document. */
  deref(api: Api, node: any): any {
    return deref(this.docs[api], node);
  }

  /** A validator for the schema at a JSON pointer of a document, compiled once. */
  private validatorAt(api: Api, pointer: string): ValidateFunction {
    const ref = `${api}.json#${pointer}`;
    let fn = this.compiled.get(ref);
    if (!fn) {
      fn = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, fn);
    }
    return fn;
  }

  /** The documented response object for a status, and the pointer to it. */
  private responseFor(info: OperationInfo, status: number): { response: Json; pointer: string } | undefined {
    const responses = info.operation.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (!key) return undefined;
    let pointer = `/paths/${escape(info.path)}/${info.method.toLowerCase()}/responses/${escape(key)}`;
    let response = responses[key];
    while (response?.$ref) {
      pointer = (response.$ref as string).slice(1);
      response = this.deref(info.api, response);
    }
    return { response, pointer };
  }

  /**
   * Problems of one answer against the contract; an empty list means it keeps the contract.
   * `body` is the raw text (or bytes' length for binary media).
   */
  validateResponse(operationId: string, status: number, headers: Headers, body: string): string[] {
    const info = this.operation(operationId);
    const problems: string[] = [];
    const found = this.responseFor(info, status);
    if (!found) return [`status ${status} is not documented for ${operationId} (documented: ${Object.keys(info.operation.responses ?? {}).join(', ')})`];
    const { response, pointer } = found;

    for (const [name, rawHeader] of Object.entries<Json>(response.headers ?? {})) {
      const header = this.deref(info.api, rawHeader);
      const value = headers.get(name);
      if (value === null) {
        problems.push(`header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
      const check = this.ajv.compile(schema);
      if (!check(typed)) problems.push(`header ${name}: "${value}" ${this.ajv.errorsText(check.errors)}`);
    }

    const content: Json = response.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      if (body.length > 0 && status !== 204) problems.push(`status ${status} documents no body, but one was sent`);
      if (status === 204 && body.length > 0) problems.push('a 204 answer must have no body');
      return problems;
    }
    const contentType = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const media = mediaTypes.find((m) => m.toLowerCase() === contentType) ?? mediaTypes.find((m) => m.endsWith('/*') && contentType.startsWith(m.slice(0, -1)));
    if (!media) {
      problems.push(`content-type "${contentType}" is not documented (documented: ${mediaTypes.join(', ')})`);
      return problems;
    }
    if (!/json/.test(media)) return problems;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      problems.push('the body is not valid JSON');
      return problems;
    }
    const validate = this.validatorAt(info.api, `${pointer}/content/${escape(media)}/schema`);
    if (!validate(parsed)) {
      for (const e of (validate.errors ?? []).slice(0, 5))
        problems.push(
          `body${e.instancePath || ''} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
        );
    }
    return problems;
  }
}
