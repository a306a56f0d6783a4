// CPU use of the processes a bench case runs (from /proc where it is there), and its share of the cores.
import { readFile } from 'node:fs/promises';
import os from 'node:os';

/** CPU seconds (user + system) a process has used so far; undefined where /proc is not there. */
export async function processCpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file, 12 and 13 after the command name; ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by every PostgreSQL server process on this machine, those that have
 * ended included (the postmaster's reaped children: cutime and cstime); undefined without /proc.
 */
async function postgresCpuSeconds(): Promise<number | undefined> {
  try {
    const { readdir } = await import('node:fs/promises');
    let total = 0;
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, and the ended children's cutime and cstime (fields 14 to 17 of the file).
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
    }
    return total;
  } catch {
    return undefined;
  }
}

/** Busy CPU seconds of the whole machine so far, all cores together. */
function machineCpuSeconds(): number {
  return os.cpus().reduce((sum, cpu) => sum + (cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq) / 1000, 0);
}

/** CPU seconds used so far by Till, the receiver, this process, PostgreSQL and the whole machine. */
export interface CpuSample {
  till?: number;
  receiver?: number;
  bench: number;
  postgres?: number;
  machine: number;
}

/** CPU used between two samples, in cores: each process's, and `other` (what is left of `machine`). */
export interface CpuCores {
  till?: number;
  receiver?: number;
  bench: number;
  postgres?: number;
  other?: number;
  machine: number;
  of: number;
}

/** Samples the CPU seconds used so far by Till (`tillPid`), the receiver (`receiverPid`), this process, PostgreSQL and the machine. */
export async function sampleCpu(tillPid: number | undefined, receiverPid: number | undefined): Promise<CpuSample> {
  const own = process.cpuUsage();
  return {
    till: await processCpuSeconds(tillPid),
    receiver: await processCpuSeconds(receiverPid),
    bench: (own.user + own.system) / 1e6,
    postgres: await postgresCpuSeconds(),
    machine: machineCpuSeconds(),
  };
}

/** The cores used between samples `a` and `b`, `seconds` apart, each rounded to two decimals. */
export function cpuCores(a: CpuSample, b: CpuSample, seconds: number): CpuCores {
  const cores = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? undefined : Math.round(((y - x) / seconds) * 100) / 100;
  const used = {
    till: cores(a.till, b.till),
    receiver: cores(a.receiver, b.receiver),
    bench: cores(a.bench, b.bench)!,
    postgres: cores(a.postgres, b.postgres),
    machine: cores(a.machine, b.machine)!,
  };
  const known = [used.till, used.receiver, used.postgres];
  const other = known.every((x) => x !== undefined)
    ? Math.max(0, Math.round((used.machine - used.bench - known.reduce((x, y) => x! + y!, 0)!) * 100) / 100)
    : undefined;
  return { ...used, other, of: os.cpus().length };
}
