import { AppError } from '../shared/errors.js';

/** A 400 `parameter_invalid` naming the query option; the message says what and where. */
export function invalidOption(option: string, message: string): AppError {
  return new AppError('parameter_invalid', { param: option, message: `${option}: ${message}` });
}
