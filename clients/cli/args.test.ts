import { describe, expect, it } from 'vitest';
import { ArgsError, parseArgs, parseTypes } from './args.js';

const opts = (argv: string[], env: Record<string, string> = {}) => {
  const r = parseArgs(argv, env);
  if (r.help) throw new Error('unexpected help');
  return r.options;
};

describe('the ticker arguments', () => {
  it('follows the firehose on the default local URL when given nothing', () => {
    expect(opts([])).toEqual({
      channel: 'firehose',
      types: undefined,
      url: 'ws://127.0.0.1:8080/ws',
      token: undefined,
      compact: false,
    });
  });

  it('folds odds moves with --compact', () => {
    expect(opts(['--all', '--compact']).compact).toBe(true);
  });

  it('maps --race, --meeting and --all to their channels, in both flag forms', () => {
    expect(opts(['--race', 'r1']).channel).toBe('race:r1');
    expect(opts(['--meeting=m1']).channel).toBe('meeting:m1');
    expect(opts(['--all']).channel).toBe('firehose');
  });

  it('takes the URL and token from the environment unless given', () => {
    expect(opts([], { RACEWIRE_URL: 'wss://x.example/ws', RACEWIRE_TOKEN: 'k' })).toMatchObject({
      url: 'wss://x.example/ws',
      token: 'k',
    });
    expect(opts(['--url', 'ws://h:1/ws', '--token', 't'], { RACEWIRE_TOKEN: 'k' })).toMatchObject({
      url: 'ws://h:1/ws',
      token: 't',
    });
  });

  it('expands event families and rejects unknown event types', () => {
    expect(parseTypes('runner.scratched,odds.changed')).toEqual(['runner.scratched', 'odds.changed']);
    expect(parseTypes('meeting.*')).toEqual(['meeting.added', 'meeting.race_added', 'meeting.race_removed']);
    expect(parseTypes('market.*,odds.*')).toEqual([
      'market.big_bet',
      'market.money_flow',
      'odds.changed',
      'odds.pools_changed',
      'odds.plunge',
      'odds.drift',
    ]);
    expect(() => parseTypes('odds.moved')).toThrow('--events: unknown event type "odds.moved"');
    expect(() => parseTypes(' , ')).toThrow('--events needs at least one event type');
  });

  it.each([
    [['--race'], '--race needs a value'],
    [['--race', '--all'], '--race needs a value'],
    [['--race', 'a', '--meeting', 'b'], 'choose one of --race, --meeting and --all'],
    [['--race', 'a', '--race', 'b'], '--race given twice'],
    [['--colour'], 'unknown argument "--colour"'],
    [['r1'], 'unexpected argument "r1"'],
    [['--url', 'http://h/ws'], '--url: "http://h/ws" must start with ws:// or wss://'],
    [['--url', 'nope'], '--url: "nope" is not a URL'],
  ])('rejects %j with "%s"', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(new ArgsError(message));
  });

  it('answers --help with help', () => {
    expect(parseArgs(['--race', 'x', '--help'])).toEqual({ help: true });
  });
});
