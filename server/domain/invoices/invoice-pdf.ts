// An invoice as a PDF (pdfkit): the merchant, the payer, number, dates, lines with tax, discount,
// totals, what was paid, refunded and is still due, and the status. The API's `getInvoicePdf`, the
// email `sendInvoice` writes and the customer portal all render it here. Amounts are printed from
// the stored decimal strings with the currency's minor units, never through a float.
import { Decimal } from 'decimal.js';
import type { Db } from '../../db/database.js';
import type { InvoiceRow } from './invoice.tables.js';
import { decimalToString } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { AppError } from '../../shared/errors.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { amountDue, type InvoiceLine } from './invoice.lines.js';
import { findInvoice } from './invoice.repository.js';

const MARGIN = 50;
const PAGE_BOTTOM = 842 - 60; // A4 height less the bottom margin
/** Table columns: left edge and width (A4 is 595 points wide). */
const COLUMNS = { item: [MARGIN, 215], qty: [270, 50], unit: [325, 80], tax: [410, 45], amount: [460, 85] } as const;

/**
 * The tenant's invoice as a PDF; 404 `resource_not_found` for anyone else's (as `getInvoice`).
 * It shows the invoice as it is now.
 */
export async function renderInvoicePdf(db: Db, tenant: Tenant, invoiceId: number): Promise<Buffer> {
  const invoice = await findInvoice(db, tenant, { id: invoiceId });
  if (!invoice) throw new AppError('resource_not_found', { param: 'id', message: `No such invoice: ${invoiceId}.` });
  return invoicePdf(db, invoice);
}

/** The PDF of an invoice already read (in the caller's transaction, as it is about to be sent). */
export async function invoicePdf(db: Db, invoice: InvoiceRow): Promise<Buffer> {
  const merchant = await getMerchant(db, invoice.merchant_id);
  return drawInvoice(invoice, { name: merchant.name, email: merchant.email });
}

/** The file name an invoice's PDF is given (download, email attachment). */
export const invoicePdfFilename = (invoice: Pick<InvoiceRow, 'invoice_number'>): string => `${invoice.invoice_number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`;

/**
 * An amount as printed: exact, with the currency's minor units and thousands grouped
 * ("1,234.50 USD").
 */
export function formatAmount(value: string, currency: string): string {
  const fixed = decimalToString(value, currency);
  const negative = fixed.startsWith('-');
  const [whole, fraction] = (negative ? fixed.slice(1) : fixed).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`} ${currency}`;
}

/**
 * Text the PDF's standard fonts can show (Windows-1252): accents kept where Latin-1 has them,
 * otherwise dropped, and anything else replaced by "?".
 */
function printable(text: string): string {
  return Array.from(text.normalize('NFC'))
    .map((ch) => (ch.charCodeAt(0) <= 0xff ? ch : ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')))
    .join('')
    .replace(/[^\u0020-\u007e\u00a0-\u00ff\n]/g, '?');
}

const day = (date: Date | null): string | null => (date ? date.toISOString().slice(0, 10) : null);
const statusLabel = (status: string): string => (status.charAt(0).toUpperCase() + status.slice(1)).replace(/_/g, ' ');

/** A stored line with its amounts (lines stored before they carried their totals are computed, exactly). */
function lineOf(raw: Partial<InvoiceLine> & { name: string; quantity: number; unitAmount: string | number }): InvoiceLine {
  const unit = raw.unitAmount.toString();
  const subtotal = raw.subtotal ?? new Decimal(unit).times(raw.quantity.toString()).toFixed();
  return {
    id: raw.id ?? 0,
    name: raw.name,
    description: raw.description ?? null,
    quantity: raw.quantity,
    unitAmount: unit,
    taxRate: raw.taxRate ?? null,
    subtotal,
    taxAmount: raw.taxAmount ?? '0',
    total: raw.total ?? subtotal,
  };
}

/**
 * pdfkit, loaded at the first invoice drawn: it and its font engine are about a fifth of a
 * second of loading that every start would otherwise pay before it answers.
 */
const loadPdfkit = () => import('pdfkit').then((module) => module.default);
let pdfkit: ReturnType<typeof loadPdfkit> | undefined;

async function drawInvoice(invoice: InvoiceRow, merchant: { name: string; email: string | null }): Promise<Buffer> {
  const PDFDocument = await (pdfkit ??= loadPdfkit());
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, info: { Title: `Invoice ${invoice.invoice_number}`, Author: printable(merchant.name) } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  drawHeader(doc, invoice, merchant);
  drawLines(doc, invoice);
  drawTotals(doc, invoice);
  doc.end();
  return done;
}

function drawHeader(doc: PDFKit.PDFDocument, invoice: InvoiceRow, merchant: { name: string; email: string | null }): void {
  doc.font('Helvetica-Bold').fontSize(20).text(printable(merchant.name), MARGIN, MARGIN, { width: 300 });
  if (merchant.email) doc.font('Helvetica').fontSize(10).text(printable(merchant.email), { width: 300 });
  doc.font('Helvetica-Bold').fontSize(16).text('INVOICE', 345, MARGIN, { width: 200, align: 'right' });
  doc
    .font('Helvetica')
    .fontSize(10)
    .text(`Number: ${printable(invoice.invoice_number)}`, { width: 200, align: 'right' });
  doc.text(`Status: ${statusLabel(invoice.status)}`, { width: 200, align: 'right' });
  const dates: [string, string | null][] = [
    ['Issued', day(invoice.created_at)],
    ['Due', day(invoice.due_date)],
    ['Period', invoice.period_start && invoice.period_end ? `${day(invoice.period_start)} to ${day(invoice.period_end)}` : null],
    ['Paid', day(invoice.paid_at)],
    ['Voided', day(invoice.voided_at)],
  ];
  for (const [label, value] of dates) if (value) doc.text(`${label}: ${value}`, { width: 200, align: 'right' });
  const top = Math.max(doc.y, 140) + 15;
  const payer = [invoice.payer_first_name, invoice.payer_last_name].filter(Boolean).join(' ');
  doc.font('Helvetica-Bold').fontSize(10).text('Bill to', MARGIN, top);
  doc.font('Helvetica');
  if (payer) doc.text(printable(payer));
  if (invoice.payer_email) doc.text(printable(invoice.payer_email));
  if (!payer && !invoice.payer_email) doc.text('-');
  if (invoice.description) doc.moveDown(0.5).text(printable(invoice.description), MARGIN, doc.y, { width: 495 });
  doc.y += 15;
}

function tableHeader(doc: PDFKit.PDFDocument, y: number): number {
  doc.font('Helvetica-Bold').fontSize(9);
  const cell = (text: string, [x, width]: readonly [number, number], align: 'left' | 'right') => doc.text(text, x, y, { width, align });
  cell('Item', COLUMNS.item, 'left');
  cell('Qty', COLUMNS.qty, 'right');
  cell('Unit price', COLUMNS.unit, 'right');
  cell('Tax', COLUMNS.tax, 'right');
  cell('Amount', COLUMNS.amount, 'right');
  doc
    .moveTo(MARGIN, y + 13)
    .lineTo(545, y + 13)
    .lineWidth(0.5)
    .stroke();
  doc.font('Helvetica').fontSize(9);
  return y + 18;
}

function drawLines(doc: PDFKit.PDFDocument, invoice: InvoiceRow): void {
  let y = tableHeader(doc, doc.y);
  const currency = invoice.currency;
  for (const raw of invoice.line_items as Parameters<typeof lineOf>[0][]) {
    const line = lineOf(raw);
    const name = printable(line.name) + (line.description ? `\n${printable(line.description)}` : '');
    const height = doc.heightOfString(name, { width: COLUMNS.item[1] });
    if (y + height > PAGE_BOTTOM) {
      doc.addPage();
      y = tableHeader(doc, MARGIN);
    }
    doc.text(name, COLUMNS.item[0], y, { width: COLUMNS.item[1] });
    doc.text(line.quantity.toString(), COLUMNS.qty[0], y, { width: COLUMNS.qty[1], align: 'right' });
    doc.text(formatAmount(line.unitAmount, currency), COLUMNS.unit[0], y, { width: COLUMNS.unit[1], align: 'right' });
    doc.text(line.taxRate === null ? '-' : `${line.taxRate}%`, COLUMNS.tax[0], y, { width: COLUMNS.tax[1], align: 'right' });
    doc.text(formatAmount(line.subtotal, currency), COLUMNS.amount[0], y, { width: COLUMNS.amount[1], align: 'right' });
    y += height + 6;
  }
  doc.moveTo(MARGIN, y).lineTo(545, y).lineWidth(0.5).stroke();
  doc.y = y + 8;
}

function drawTotals(doc: PDFKit.PDFDocument, invoice: InvoiceRow): void {
  const currency = invoice.currency;
  const rows: [string, string, boolean][] = [
    ['Subtotal', formatAmount(invoice.subtotal, currency), false],
    ['Tax', formatAmount(invoice.tax_amount, currency), false],
    ['Discount', formatAmount(new Decimal(invoice.discount).negated().toFixed(), currency), false],
    ['Total', formatAmount(invoice.total, currency), true],
    ['Amount paid', formatAmount(invoice.amount_paid, currency), false],
  ];
  if (!new Decimal(invoice.amount_refunded).isZero()) rows.push(['Amount refunded', formatAmount(invoice.amount_refunded, currency), false]);
  rows.push(['Amount due', formatAmount(amountDue(invoice).toFixed(), currency), true]);
  if (doc.y + rows.length * 15 > PAGE_BOTTOM) doc.addPage();
  for (const [label, value, bold] of rows) {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    doc.text(label, 250, y, { width: 200, align: 'right' });
    doc.text(value, 460, y, { width: 85, align: 'right' });
    doc.y = y + 15;
  }
  if (invoice.notes) {
    doc.moveDown(1).font('Helvetica-Bold').fontSize(10).text('Notes', MARGIN, doc.y);
    doc.font('Helvetica').text(printable(invoice.notes), { width: 495 });
  }
}
