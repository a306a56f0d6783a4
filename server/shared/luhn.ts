// The Luhn check card numbers pass: the request log's redaction (domain/request-logs/redact.ts) and
// the secrets scan (scripts/secrets/patterns.ts) both ask it of a run of digits.

/** Whether a string of digits passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
