import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../api/errors';
import { editErrorText } from './useSubmit';

describe('editErrorText', () => {
  it('marks a 409 as the server refusing, and gives other errors as they are', () => {
    expect(editErrorText(new ApiError(409, 'The pipeline is busy', {}))).toBe('Refused: The pipeline is busy');
    expect(editErrorText(new ApiError(400, 'description must not be empty', {}))).toBe('description must not be empty');
    expect(editErrorText(new NetworkError('Cannot reach the server'))).toBe('Cannot reach the server');
  });
});
