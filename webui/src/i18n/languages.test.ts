import { describe, expect, it } from 'vitest';
import { languageOf, matchLanguage, matchOne } from './languages';

describe('the language from the browser', () => {
  it('maps Chinese tags onto Simplified or Traditional script', () => {
    expect(matchLanguage(['zh-CN'])).toBe('zh-CN');
    expect(matchLanguage(['zh'])).toBe('zh-CN');
    expect(matchLanguage(['zh-SG'])).toBe('zh-CN');
    expect(matchLanguage(['zh-TW'])).toBe('zh-TW');
    expect(matchLanguage(['zh-HK'])).toBe('zh-TW');
    expect(matchLanguage(['zh-Hant-HK'])).toBe('zh-TW');
    expect(matchLanguage(['zh_TW'])).toBe('zh-TW');
  });

  it('takes the first offered language of the list, by primary language, else English', () => {
    expect(matchLanguage(['vi-VN', 'en'])).toBe('vi');
    expect(matchLanguage(['xx', 'ar-EG'])).toBe('ar');
    expect(matchLanguage(['tlh'])).toBe('en');
    expect(matchLanguage([])).toBe('en');
    expect(matchOne('')).toBeNull();
  });

  it('lays Arabic out right to left', () => {
    expect(languageOf('ar').dir).toBe('rtl');
    expect(languageOf('zh-CN').dir).toBe('ltr');
    expect(languageOf('nope').code).toBe('en');
  });
});
