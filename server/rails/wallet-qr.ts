// The sandbox wallet: issues dynamic QR codes (EMV merchant-presented payload) and renders them as
// PNG. The sandbox triggers for wallets live here too.
import QRCode from 'qrcode';
import { randomToken } from '../shared/crypto.js';

/** A test-mode session `metadata` key: with the value `failed`, withdraw-qr answers `failed` (nothing changes, the code can still be paid). */
export const SANDBOX_WITHDRAW_QR_KEY = 'sandboxWithdrawQr';
export const SANDBOX_WITHDRAW_QR_FAILED = 'failed';
/** A wallet refund is accepted at once (`pending_reversal`) and completes this long after, in the sandbox. */
export const WALLET_REFUND_DELAY_MINUTES = 5;
/** The wallet options Till knows (`wallet:<option>` in confirm). */
export const WALLET_OPTIONS = ['qr'] as const;

/** ISO 4217 numeric codes for EMV tag 53; `999` (no currency) for the others. */
const NUMERIC_CURRENCY: Record<string, string> = {
  USD: '840',
  EUR: '978',
  GBP: '826',
  JPY: '392',
  CAD: '124',
  AUD: '036',
  CHF: '756',
  SGD: '702',
  HKD: '344',
  INR: '356',
  MXN: '484',
  BRL: '986',
  CNY: '156',
  KRW: '410',
  THB: '764',
  MYR: '458',
  IDR: '360',
  PHP: '608',
  VND: '704',
  KWD: '414',
};

const tlv = (id: string, value: string) => `${id}${value.length.toString().padStart(2, '0')}${value}`;

/** CRC-16/CCITT-FALSE, as EMV QR codes end with (tag 63). */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

export interface IssuedQr {
  /** Names the code's image; unguessable, so the image URL reveals nothing of other payments. */
  token: string;
  /** The payload to render. */
  data: string;
}

/** Issues a dynamic QR code for one payment: amount, currency, merchant and the payment's reference. */
export function issueQr(input: { reference: string; amount: string; currency: string; merchantName: string }): IssuedQr {
  const token = `qr_${randomToken(24)}`;
  const name =
    input.merchantName
      .replace(/[^A-Za-z0-9 .-]/g, '')
      .trim()
      .slice(0, 25) || 'Till merchant';
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'com.till.sandbox') + tlv('01', token)) +
    tlv('52', '5999') +
    tlv('53', NUMERIC_CURRENCY[input.currency] ?? '999') +
    tlv('54', input.amount) +
    tlv('58', 'ZZ') +
    tlv('59', name) +
    tlv('60', 'Sandbox') +
    tlv('62', tlv('05', input.reference.slice(0, 25)));
  const withCrcTag = `${body}6304`;
  return { token, data: withCrcTag + crc16(withCrcTag) };
}

/** The code as a PNG image. */
export const qrPng = (data: string, width = 320): Promise<Buffer> => QRCode.toBuffer(data, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width });
