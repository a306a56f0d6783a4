// Small DOM helpers of the hosted pages' scripts: messages in the live regions, inline field
// errors tied to their inputs, and the payment-method picker.

/** An error answer of the API, as the SDK returns it. */
export interface ApiError {
  error?: { type?: string; code?: string; message?: string; param?: string };
  errorMessage?: string;
}

export const $ = (id: string): HTMLElement => document.getElementById(id)!;

/** Puts a message in a live region (the screen reader announces it). */
export function show(region: HTMLElement, message: string): void {
  region.textContent = message;
}

/** Clears the alert and every field error. */
export function clearErrors(alertBox: HTMLElement): void {
  alertBox.textContent = '';
  for (const el of document.querySelectorAll<HTMLElement>('.field-error')) el.textContent = '';
  for (const input of document.querySelectorAll<HTMLInputElement>('input[aria-invalid]')) input.removeAttribute('aria-invalid');
}

/** Shows a message under the named field; false when the page has no such field. */
export function showFieldError(param: string, message: string): boolean {
  const input = document.getElementById(param) as HTMLInputElement | null;
  const slot = document.getElementById(`${param}-error`);
  if (!input || !slot) return false;
  slot.textContent = message;
  input.setAttribute('aria-invalid', 'true');
  input.focus();
  return true;
}

/** Words fit for the payer. */
export function describeError(error: ApiError | undefined, fallback: string): string {
  if (!error) return fallback;
  if (error.error?.code === 'card_declined') return `Your card was declined. ${error.error.message ?? ''} Try another card.`.replace(/\s+/g, ' ').trim();
  return error.error?.message ?? error.errorMessage ?? fallback;
}

/** The buttons that choose a payment method show its section and hide the others; `preferred` (or the first) is shown first. */
export function wireMethodPicker(preferred?: string): void {
  const buttons = [...document.querySelectorAll<HTMLButtonElement>('[data-pick]')];
  const sections = [...document.querySelectorAll<HTMLElement>('.method')];
  const pick = (method: string) => {
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.pick === method));
    for (const s of sections) {
      const shown = s.dataset.method === method;
      if (shown && s.hidden) s.dispatchEvent(new Event('till:shown'));
      s.hidden = !shown;
    }
  };
  for (const b of buttons) b.addEventListener('click', () => pick(b.dataset.pick!));
  const first = sections.find((s) => s.dataset.method === preferred)?.dataset.method ?? sections[0]?.dataset.method;
  if (first) pick(first);
}

/**
 * This tab's memory for the way back from 3-D Secure: sessionStorage, or, where a browser denies
 * it to a framed page (the embedded form on another site), the frame's own `window.name`, which
 * survives its navigations and is never sent to a server.
 */
export const tabMemory = {
  get(key: string): string | null {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return readName()[key] ?? null;
    }
  },
  set(key: string, value: string | null): void {
    try {
      if (value === null) sessionStorage.removeItem(key);
      else sessionStorage.setItem(key, value);
    } catch {
      const all = readName();
      if (value === null) delete all[key];
      else all[key] = value;
      window.name = `till:${JSON.stringify(all)}`;
    }
  },
};

function readName(): Record<string, string> {
  try {
    return window.name.startsWith('till:') ? (JSON.parse(window.name.slice(5)) as Record<string, string>) : {};
  } catch {
    return {};
  }
}
