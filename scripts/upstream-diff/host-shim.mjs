// The host shim of the agent-core layout (setup.sh). The extraction script
// as shipped passes no host to convertAgentMessagesToCompactMessageHistoryString;
// the app passes its browser host, whose tool-part serializers write the
// shell, sandbox, lint, docs, ask-user and watcher markers. The shim gives
// the script that host, built from the upstream's own code: the real
// AgentHost class (packages/agent-core/src/host/host.ts) with the real
// browserToolPartSerializers registered, as
// services/agent-core-bridge/host.ts does. Only two import lines of
// tool-part-serializers.ts change: the package alias of
// defineToolPartSerializers becomes its relative path, and allToolSchemas
// (zod schemas, used for type inference only: defineToolPartSerializers
// ignores its first argument) becomes an empty object.
//
//   node host-shim.mjs UPDIR SERDIR          patch the tree, write ud-host.ts
//   node host-shim.mjs --script IN.ts OUT.ts  the script variant passing it
//
// It edits by exact text replacement and fails if an anchor is missing.
import fs from 'node:fs';
import path from 'node:path';

function replaceOnce(text, from, to, what) {
  const i = text.indexOf(from);
  if (i < 0 || text.indexOf(from, i + 1) >= 0) {
    console.error(`host-shim: ${what}: anchor not found exactly once: ${JSON.stringify(from)}`);
    process.exit(1);
  }
  return text.slice(0, i) + to + text.slice(i + from.length);
}

const args = process.argv.slice(2);
if (args[0] === '--script') {
  const [, src, dst] = args;
  let text = fs.readFileSync(src, 'utf8');
  text = replaceOnce(
    text,
    'convertAgentMessagesToCompactMessageHistoryString(messagesToCompact)',
    'convertAgentMessagesToCompactMessageHistoryString(messagesToCompact, udHost)',
    src,
  );
  text = replaceOnce(
    text,
    "import superjson from 'superjson';",
    "import superjson from 'superjson';\nimport { udHost } from './ud-host'; // upstream-diff: the app's browser host",
    src,
  );
  fs.writeFileSync(dst, text);
} else {
  const [up, serdir] = args;
  const tps = path.join(up, 'apps/browser/src/backend/agents/chat/tool-part-serializers.ts');
  let text = fs.readFileSync(tps, 'utf8');
  text = replaceOnce(
    text,
    "import { defineToolPartSerializers } from '@stagewise/agent-core/agents';",
    `import { defineToolPartSerializers } from '../../../../../../${serdir}/define-tool-part-serializers';`,
    tps,
  );
  text = replaceOnce(
    text,
    "import { allToolSchemas } from '@shared/karton-contracts/ui/agent/tools/types';",
    '// upstream-diff: schemas for type inference only\nconst allToolSchemas = {} as any;',
    tps,
  );
  fs.writeFileSync(tps, text);
  fs.writeFileSync(
    path.join(up, 'scripts/experiments/ud-host.ts'),
    `// upstream-diff: the app's browser host (see host-shim.mjs).
import { AgentHost } from '../../packages/agent-core/src/host/host';
import { browserToolPartSerializers } from '../../apps/browser/src/backend/agents/chat/tool-part-serializers';

export const udHost = new AgentHost({} as any);
udHost.registerToolPartSerializers(browserToolPartSerializers);
`,
  );
}
