// poppler's pdftotext, to read the text of the PDFs Till renders. Without it the PDF-text tests
// are skipped and say why; with TILL_REQUIRE_BROWSER=1 (CI) a missing pdftotext fails the run
// instead, as a missing browser does.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe } from 'vitest';

export const PDFTOTEXT = '/usr/bin/pdftotext';

export const pdftotextAvailable = existsSync(PDFTOTEXT);

if (!pdftotextAvailable) {
  if (process.env.TILL_REQUIRE_BROWSER === '1')
    throw new Error(`${PDFTOTEXT} is missing and TILL_REQUIRE_BROWSER=1: install it with \`apt-get install -y poppler-utils\`.`);
  console.warn(`PDF text tests skipped: ${PDFTOTEXT} is missing. Install poppler-utils (\`apt-get install -y poppler-utils\`) to run them.`);
}

/** `describe` for tests that read a PDF's text: skipped (and reported as skipped) without pdftotext. */
export const describeWithPdftotext = pdftotextAvailable ? describe : describe.skip;

/** The text of a PDF, laid out as on the page (columns kept on their lines). */
export function pdfText(pdf: Buffer): string {
  return execFileSync(PDFTOTEXT, ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');
}
