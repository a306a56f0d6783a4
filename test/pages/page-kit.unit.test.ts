// The page kit's escaping and formatting, alone.
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../server/pages/kit/format.js';
import { html, raw } from '../../server/pages/kit/html.js';
import { textOn } from '../../server/pages/kit/layout.js';

describe('html``', () => {
  it('escapes every interpolated value, in content and in attributes', () => {
    const name = `<script>alert("x")</script>&'\``;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;&#96;">&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;&#96;</p>',
    );
  });

  it('keeps nested templates and raw markup, joins arrays, drops null, undefined and false', () => {
    const items = ['a<b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${raw('<hr>')}${0}`.value).toBe('<ul><li>a&#60;b</li><li>c</li></ul><hr>0');
  });
});

describe('formatMoney', () => {
  it('formats exact decimals in the currency minor unit, never through a float', () => {
    expect(formatMoney('42.5', 'USD')).toBe('$42.50');
    expect(formatMoney('12345678901234567.45', 'USD')).toBe('$12,345,678,901,234,567.45');
    expect(formatMoney('500', 'JPY')).toBe('¥500');
    expect(formatMoney('1.25', 'KWD')).toBe('KWD\u00a01.250');
    expect(formatMoney('9.99', 'EUR')).toBe('€9.99');
  });
});

describe('textOn', () => {
  it('picks the readable text colour for a brand colour', () => {
    expect(textOn('#1f5eff')).toBe('#ffffff');
    expect(textOn('#ffd400')).toBe('#111827');
  });
});
