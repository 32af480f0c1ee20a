/**
 * Reads a Dockerfile the way `docker build` resolves it for one target and a set of build
 * arguments: the stage chain down to the base image, with `${NAME}` substituted from ARG and
 * ENV. Only what the drift tests look at; no Docker engine is needed.
 */

export interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name?: string;
  base: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  globalArgs: Map<string, string | undefined>;
  stages: Stage[];
}

/** An image as built: its stages from the outermost base to the target, resolved. */
export interface ResolvedImage {
  /** Stage names from the first one built upon to the target. */
  stages: string[];
  baseImage: string;
  env: Map<string, string>;
  user: string | undefined;
  workdir: string;
  exposed: string[];
  healthcheck: string | undefined;
  cmd: string[];
  /** RUN and COPY lines, substituted, with those of the stages it copies from (`COPY --from`) before them. */
  steps: Instruction[];
}

const logicalLines = (text: string): string[] =>
  text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

/** `NAME=value` or `NAME` (ARG), `A=1 B=2` (ENV); quotes are not used in these files. */
const assignments = (args: string): Array<[string, string | undefined]> =>
  args.split(/\s+/).map((pair) => {
    const at = pair.indexOf('=');
    return at === -1 ? [pair, undefined] : [pair.slice(0, at), pair.slice(at + 1)];
  });

export const parseDockerfile = (text: string): Dockerfile => {
  const globalArgs = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') {
      const [base = '', as, name] = rest;
      stages.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG') throw new Error(`only ARG may precede the first FROM, found ${line}`);
      for (const [name, value] of assignments(instruction.args)) globalArgs.set(name, value);
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
};

const substitute = (value: string, scope: Map<string, string | undefined>): string =>
  value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_match, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare) as string;
    const found = scope.get(name);
    if (found === undefined) throw new Error(`\${${name}} has no value`);
    return found;
  });

/** The target stage (default: the last one) as built with `buildArgs`. */
export const resolveImage = (dockerfile: Dockerfile, buildArgs: Record<string, string>, target?: string): ResolvedImage => {
  const globalScope = new Map<string, string | undefined>(
    [...dockerfile.globalArgs].map(([name, fallback]) => [name, buildArgs[name] ?? fallback]),
  );
  const chainOf = (stage: Stage): Stage[] => {
    const base = substitute(stage.base, globalScope);
    const parent = dockerfile.stages.find((candidate) => candidate.name === base);
    return parent ? [...chainOf(parent), stage] : [stage];
  };
  const targetStage = target === undefined ? dockerfile.stages.at(-1) : dockerfile.stages.find((stage) => stage.name === target);
  if (!targetStage) throw new Error(`no stage ${target ?? '(last)'}`);
  const chain = chainOf(targetStage);
  const image: ResolvedImage = {
    stages: chain.map((stage) => stage.name ?? '(unnamed)'),
    baseImage: substitute(chain[0]?.base ?? '', globalScope),
    env: new Map(),
    user: undefined,
    workdir: '/',
    exposed: [],
    healthcheck: undefined,
    cmd: [],
    steps: [],
  };
  for (const stage of chain) {
    // ARGs are scoped to the stage that declares them; ENV carries on to the stages built on it.
    const scope = new Map<string, string | undefined>(image.env);
    for (const { keyword, args } of stage.instructions) {
      if (keyword === 'ARG') {
        for (const [name, fallback] of assignments(args)) scope.set(name, buildArgs[name] ?? fallback ?? globalScope.get(name));
      } else if (keyword === 'ENV') {
        for (const [name, value] of assignments(args)) {
          const resolved = substitute(value ?? '', scope);
          image.env.set(name, resolved);
          scope.set(name, resolved);
        }
      } else if (keyword === 'USER') image.user = substitute(args, scope);
      else if (keyword === 'WORKDIR') image.workdir = substitute(args, scope);
      else if (keyword === 'EXPOSE') image.exposed.push(...substitute(args, scope).split(/\s+/));
      else if (keyword === 'HEALTHCHECK') image.healthcheck = args;
      else if (keyword === 'CMD') image.cmd = JSON.parse(args) as string[];
      else if (keyword === 'RUN' || keyword === 'COPY') {
        const step = { keyword, args: substitute(args, scope) };
        const source = /^--from=(\S+)/.exec(step.args)?.[1];
        if (source && dockerfile.stages.some((candidate) => candidate.name === source)) {
          image.steps.push(...resolveImage(dockerfile, buildArgs, source).steps);
        }
        image.steps.push(step);
      }
    }
  }
  return image;
};
