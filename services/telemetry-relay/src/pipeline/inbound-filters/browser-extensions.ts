// relay-filter/src/browser_extensions.rs: errors whose first exception's value names a known extension or injected
// script, or whose last frame that is not anonymous comes from an extension or a known injecting host.
import { exceptions, framePath } from './event-fields.ts';
import type { InboundFilter } from './types.ts';

const EXTENSION_VALUES = new RegExp(
  [
    'top\\.GLOBALS',
    'originalCreateNotification',
    'canvas.contentDocument',
    'MyApp_RemoveAllHighlights',
    'http://tt\\.epicplay\\.com',
    "Can't\\sfind\\svariable:\\sZiteReader",
    'jigsaw\\sis\\snot\\sdefined',
    'ComboSearch\\sis\\snot\\sdefined',
    'http://loading\\.retry\\.widdit\\.com/',
    'atomicFindClose',
    'fb_xd_fragment',
    'bmi_SafeAddOnload',
    'EBCallBackMessageReceived',
    '_gCrWeb',
    'conduitPage',
    "null\\sis\\snot\\san\\sobject\\s\\(evaluating\\s'elt.parentNode'\\)",
    'plugin\\.setSuspendState\\sis\\snot\\sa\\sfunction',
    'Extension\\scontext\\sinvalidated',
    'webkit-masked-url:',
    "can't\\saccess\\sdead\\sobject",
  ].join('|'),
  'i',
);

const EXTENSION_SOURCES = new RegExp(
  [
    'graph\\.facebook\\.com',
    'connect\\.facebook\\.net',
    'eatdifferent\\.com\\.woopra-ns\\.com',
    'static\\.woopra\\.com/js/woopra\\.js',
    '^chrome(-extension)?://',
    '^moz-extension://',
    '^safari(-web)?-extension://',
    'webkit-masked-url',
    '127\\.0\\.0\\.1:4001/isrunning',
    'webappstoolbarba\\.texthelp\\.com/',
    'metrics\\.itunes\\.apple\\.com\\.edgesuite\\.net/',
    'kaspersky-labs\\.com',
  ].join('|'),
  'i',
);

/** Frames that say nothing about where an error comes from (Relay's ANONYMOUS_FRAMES). */
const ANONYMOUS_FRAMES = new Set(['<anonymous>', '[native code]']);

/** The last frame's path that is not anonymous; none when the last frames end in one without a path (as Relay). */
function exceptionSource(frames: readonly unknown[]): string | undefined {
  for (let i = frames.length - 1; i >= 0; i--) {
    const path = framePath(frames[i]);
    if (path === undefined) return undefined;
    if (!ANONYMOUS_FRAMES.has(path)) return path;
  }
  return undefined;
}

export const browserExtensions: InboundFilter = {
  id: 'browser-extensions',
  // Read off exceptions, which transactions do not carry: their items skip this gate's needles.
  kinds: ['event'],
  keys: ['value'],
  mayMatch: (_key, value) => EXTENSION_VALUES.test(value),
  // The sources are frame paths, tens per event: a needle per pattern is cheaper than reading each
  // path. Lower case, as browsers write schemes and hosts; no slash (JSON may escape it); at most 6 characters and
  // starting with a letter rare in JSON, which V8 finds fastest (in all ≈ 0.2–0.4 of a JSON.parse; decision 013).
  needles: ['xtensi', 'hrome:', 'webkit', 'woopra', 'book.', '4001', 'kasper', 'xthelp', 'gesuit'],
  matches(event) {
    const first = exceptions(event)[0];
    if (!first) return false;
    if (first.value !== undefined && EXTENSION_VALUES.test(first.value)) return true;
    const source = exceptionSource(first.frames);
    return source !== undefined && EXTENSION_SOURCES.test(source);
  },
};
