import type { RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { liveQrData } from '../domain/payments/wallet-payment.js';
import { qrPng } from '../rails/wallet-qr.js';
import type { Clock } from '../shared/clock.js';

const FILE = /^(qr_[A-Za-z0-9]{8,64})\.png$/;

/**
 * `GET /qr/{token}.png`: the image of a live wallet QR code (the `qrImageUrl` confirm answers). The
 * token is unguessable and names one code; a withdrawn, paid or expired code answers 404.
 */
export function qrImage(db: Kysely<Database>, clock: Clock): RequestHandler {
  return async (req, res, next) => {
    try {
      const token = FILE.exec(String(req.params.file ?? ''))?.[1];
      const data = token ? await liveQrData(db, token, clock.now()) : undefined;
      res.setHeader('Cache-Control', 'no-store');
      if (!data) {
        res.status(404).type('text/plain').send('No live QR code here: it was paid, withdrawn or has expired.');
        return;
      }
      res
        .status(200)
        .type('image/png')
        .send(await qrPng(data));
    } catch (err) {
      next(err);
    }
  };
}
