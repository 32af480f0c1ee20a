import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dataSpaceOf, livemodeOf } from './data-space.ts';

describe('data spaces', () => {
  it('a live key works in its workspace, a test key in a space of its own that tells its mode', () => {
    const workspace = randomUUID();
    expect(dataSpaceOf(workspace, 'live')).toBe(workspace);
    const test = dataSpaceOf(workspace, 'test');
    expect(test).not.toBe(workspace);
    expect(dataSpaceOf(workspace, 'test')).toBe(test);
    expect(livemodeOf(workspace)).toBe(true);
    expect(livemodeOf(test)).toBe(false);
  });

  it('two workspaces never share a test space', () => {
    const spaces = new Set(Array.from({ length: 1000 }, () => dataSpaceOf(randomUUID(), 'test')));
    expect(spaces.size).toBe(1000);
  });
});
