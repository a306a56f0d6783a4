import { describe, expect, it } from 'vitest';
import { findSecrets, luhnValid } from '../../scripts/secrets/patterns.js';

const kinds = (text: string) => findSecrets(text).map((f) => f.kind);

describe('secrets patterns', () => {
  it('finds sandbox and real-shaped card numbers, plain or grouped, and masks them', () => {
    for (const card of ['4242424242424242', '4000 0027 6000 3184', '3782-822463-10005', '6011111111111117', '5555555555554444', '4222222222222']) {
      const found = findSecrets(`{"note":"${card}"}`);
      expect(
        found.map((f) => f.kind),
        card,
      ).toEqual(['card_number']);
      expect(found[0]!.masked).not.toContain(card.replace(/[ -]/g, '').slice(0, 8));
    }
  });

  it('ignores digit runs that fail Luhn, are too short or long, or sit inside a word or hash', () => {
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(kinds('4242424242424241 424242424242 42424242424242424242')).toEqual([]);
    // Epoch milliseconds (13 digits from 1), Luhn-valid or not, are not card numbers; a UATP card (15 digits from 1) is.
    expect(kinds('subscriber-1795611870811@example.com 1795611831150')).toEqual([]);
    expect(kinds('card 135410014004955')).toEqual(['card_number']);
    expect(kinds('a4242424242424242b last4 4242 1764000000 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')).toEqual([]);
    // A UUID whose first three groups are digits (a Luhn-valid 16-digit run when read with its dashes) is an identifier.
    expect(kinds('/invoice/42424242-4242-4242-8a1b-0c9d8e7f6a5b {"identifier":"55555555-5555-4444-9f00-aabbccddeeff"}')).toEqual([]);
    expect(kinds('4242-4242-4242-4242 42424242-4242-4242')).toEqual(['card_number', 'card_number']);
    // After an underscore or inside a URL it is still a card number someone kept.
    expect(kinds('tok_4242424242424242 /pay?n=4242424242424242')).toEqual(['card_number', 'card_number']);
  });

  it('finds a security-code field with digits, not a redacted one', () => {
    expect(findSecrets('{"cardNumber":"[redacted]","cvc":"123"}')).toEqual([{ kind: 'cvc', index: 27, masked: '"cvc": •••' }]);
    expect(kinds('{"CVV": 1234}')).toEqual(['cvc']);
    expect(kinds('{"cvc":"[redacted]","cvcCheck":"pass"}')).toEqual([]);
  });

  it('finds a whole secret key, not its 12-character display prefix or a publishable key', () => {
    expect(kinds('Bearer sk_test_4eC39HqLyjWDarjtT1zdp7dc')).toEqual(['secret_key']);
    expect(kinds('"prefix":"sk_live_Ab12" pk_test_4eC39HqLyjWDarjtT1zdp7dcAAAA')).toEqual([]);
  });
});
