// A product's images: at most one is primary; with none marked, the first one is.
import { AppError } from '../../shared/errors.js';

/** An image of a product as given: `isPrimary` may be left out (then the first image is). */
export interface NewProductMedia {
  mediaUrl: string;
  isPrimary?: boolean | undefined;
}
export interface ProductMedia {
  mediaUrl: string;
  isPrimary: boolean;
}

/** The images as stored: more than one primary is a 400 `validation_error` on `media`. */
export function productMedia(input: NewProductMedia[]): ProductMedia[] {
  const primaries = input.filter((m) => m.isPrimary === true).length;
  if (primaries > 1)
    throw new AppError('validation_error', { param: 'media', message: `At most one image can be primary; ${primaries} are marked isPrimary.` });
  return input.map((m, i) => ({ mediaUrl: m.mediaUrl, isPrimary: primaries === 0 ? i === 0 : m.isPrimary === true }));
}
