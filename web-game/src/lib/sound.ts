/** Short result tones from Web Audio (no sound files to fetch): a rising chirp for a win, a soft blip otherwise. */
let ctx: AudioContext | null = null;

export function playTone(kind: 'win' | 'loss'): void {
  try {
    ctx ??= new AudioContext();
    const now = ctx.currentTime;
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = 'sine';
    osc.frequency.setValueAtTime(kind === 'win' ? 660 : 260, now);
    if (kind === 'win') osc.frequency.exponentialRampToValueAtTime(1320, now + 0.16);
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.08, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + (kind === 'win' ? 0.3 : 0.12));
    osc.connect(gain).connect(ctx.destination);
    osc.start(now);
    osc.stop(now + 0.32);
  } catch {
    // no audio in this browser: silent
  }
}
