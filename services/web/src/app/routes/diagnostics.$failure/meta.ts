// The diagnostics page exists only with DIAGNOSTICS=1 (deliberate failures for the end-to-end tests).
import type { DiagnosticsData } from './loader.server.ts';

export const title = (data: DiagnosticsData) => `Diagnostics: ${data.failure} · Example Store`;
export const diagnostics = true;
