// The Commerce invoice list's OData conventions (`value`, `$count`, `$top`/`$skip`, `$filter`, `$orderby`,
// `$select`/`$expand`), and money fields as JSON numbers.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { describe, expectError, expectStatus } from '../fixtures/http.js';
import { scenario } from '../fixtures/scenario.js';
import { CONVENTIONS, INVOICE, LIST, list, newInvoice, ofRun, threeInvoices } from '../fixtures/commerce-invoices.js';

export const invoiceConventions: Scenario[] = [
  scenario('commerce.invoices.list-value', '`GET /v1/invoice` answers `{value: [...]}`', CONVENTIONS, [INVOICE, LIST], async (ctx) => {
    const inv = await newInvoice(ctx, 'list');
    const res = await list(ctx, { $filter: `referenceNumber eq '${inv.referenceNumber}'` });
    expectStatus(res, 200, 'the list');
    assert.deepEqual(res.json.value, [inv]);
  }),
  scenario('commerce.invoices.list-count', '`$count=true` adds `@odata.count`; without it there is none', CONVENTIONS, [INVOICE, LIST], async (ctx) => {
    const { prefix } = await threeInvoices(ctx, 'cnt');
    const counted = await list(ctx, { $filter: ofRun(prefix), $count: 'true', $top: '1' });
    assert.equal(counted.json['@odata.count'], 3, describe(counted));
    assert.equal(counted.json.value.length, 1);
    assert.ok(!('@odata.count' in (await list(ctx, { $filter: ofRun(prefix) })).json), 'no count unless asked');
  }),
  scenario('commerce.invoices.list-top-skip', '`$top` sets the page size and `$skip` the offset', CONVENTIONS, [INVOICE, LIST], async (ctx) => {
    const { prefix, ids } = await threeInvoices(ctx, 'page');
    const first = await list(ctx, { $filter: ofRun(prefix), $orderby: 'id asc', $top: '2' });
    assert.deepEqual(
      first.json.value.map((i: any) => i.id),
      ids.slice(0, 2),
    );
    assert.ok(first.json['@odata.nextLink'], 'a next link while more follow');
    const second = await list(ctx, { $filter: ofRun(prefix), $orderby: 'id asc', $top: '2', $skip: '2' });
    assert.deepEqual(
      second.json.value.map((i: any) => i.id),
      ids.slice(2),
    );
    assert.ok(!('@odata.nextLink' in second.json), 'no next link on the last page');
  }),
  scenario('commerce.invoices.list-filter', '`$filter` selects with `field eq value`, combined with `and`', CONVENTIONS, [INVOICE, LIST], async (ctx) => {
    const { prefix, ids } = await threeInvoices(ctx, 'flt');
    const res = await list(ctx, { $filter: `${ofRun(prefix)} and status eq 'Pending' and totalCost gt 1000`, $orderby: 'id asc' });
    assert.deepEqual(
      res.json.value.map((i: any) => i.id),
      ids.slice(1),
    );
    expectError(await list(ctx, { $filter: 'nosuchfield eq 1' }), 400, 'invalid_request', 'parameter_invalid', '$filter');
  }),
  scenario('commerce.invoices.list-orderby', '`$orderby` sorts, for example `id desc`', CONVENTIONS, [INVOICE, LIST], async (ctx) => {
    const { prefix, ids } = await threeInvoices(ctx, 'ord');
    assert.deepEqual(
      (await list(ctx, { $filter: ofRun(prefix), $orderby: 'id desc' })).json.value.map((i: any) => i.id),
      [...ids].reverse(),
    );
    assert.deepEqual(
      (await list(ctx, { $filter: ofRun(prefix), $orderby: 'totalCost asc' })).json.value.map((i: any) => i.totalCost),
      [831, 1671.45, 2511.9],
    );
  }),
  scenario(
    'commerce.invoices.list-select-expand',
    '`$select` limits the fields returned and `$expand` names related objects',
    CONVENTIONS,
    [INVOICE, LIST],
    async (ctx) => {
      const { prefix, ids } = await threeInvoices(ctx, 'sel');
      const selected = await list(ctx, { $filter: ofRun(prefix), $orderby: 'id asc', $select: 'id,totalCost' });
      assert.deepEqual(selected.json.value, [
        { id: ids[0], totalCost: 831 },
        { id: ids[1], totalCost: 1671.45 },
        { id: ids[2], totalCost: 2511.9 },
      ]);
      const expanded = await list(ctx, { $filter: ofRun(prefix), $select: 'id', $expand: 'items', $top: '1' });
      assert.deepEqual(Object.keys(expanded.json.value[0]).sort(), ['id', 'items']);
      expectError(await list(ctx, { $expand: 'payments' }), 400, 'invalid_request', 'parameter_invalid', '$expand');
    },
  ),
  scenario('commerce.invoices.money-numbers', 'Invoice money fields are JSON numbers', CONVENTIONS, [INVOICE], async (ctx) => {
    const inv = await newInvoice(ctx, 'numbers');
    for (const field of ['totalDue', 'totalPaid', 'subTotal', 'taxAmount', 'discount', 'shippingCost', 'totalCost'])
      assert.equal(typeof inv[field], 'number', field);
    for (const field of ['unitCost', 'discount', 'taxAmount', 'subTotal', 'totalCost', 'shippingCost'])
      assert.equal(typeof inv.items[0][field], 'number', `items[0].${field}`);
  }),
];
