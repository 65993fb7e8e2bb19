/**
 * A strict check of the Mermaid flowchart subset the runtime writes (no browser here to render it): the header,
 * `subgraph id["label"]` ... `end` blocks balanced, nodes `id["label"]` declared once, edges `a --> b` between
 * declared nodes, ids of letters, digits and underscores, labels quoted with no raw quote inside. Returns every
 * problem with its line number; empty means the text is a valid flowchart of that subset.
 */
export function mermaidFlowchartProblems(text: string): string[] {
  const problems: string[] = [];
  const lines = text.replace(/\n$/, '').split('\n');
  const id = '[A-Za-z][A-Za-z0-9_]*';
  const label = '"[^"]*"';
  const subgraph = new RegExp(`^\\s*subgraph (${id})\\[(${label})\\]$`);
  const node = new RegExp(`^\\s*(${id})\\[(${label})\\]$`);
  const edge = new RegExp(`^\\s*(${id}) --> (${id})$`);
  if (!/^flowchart (LR|RL|TB|TD|BT)$/.test(lines[0] ?? '')) {
    problems.push(`line 1: expected "flowchart <direction>", got ${JSON.stringify(lines[0])}`);
  }
  const nodes = new Set<string>();
  const subgraphs = new Set<string>();
  let depth = 0;
  lines.slice(1).forEach((line, index) => {
    const at = `line ${index + 2}`;
    let match: RegExpExecArray | null;
    if ((match = subgraph.exec(line)) !== null) {
      if (subgraphs.has(match[1]!) || nodes.has(match[1]!)) {
        problems.push(`${at}: subgraph id ${match[1]} used twice`);
      }
      subgraphs.add(match[1]!);
      depth += 1;
    } else if (/^\s*end$/.test(line)) {
      depth -= 1;
      if (depth < 0) {
        problems.push(`${at}: end without subgraph`);
      }
    } else if ((match = node.exec(line)) !== null) {
      if (nodes.has(match[1]!) || subgraphs.has(match[1]!)) {
        problems.push(`${at}: node ${match[1]} declared twice`);
      }
      nodes.add(match[1]!);
    } else if ((match = edge.exec(line)) !== null) {
      for (const end of [match[1]!, match[2]!]) {
        if (!nodes.has(end)) {
          problems.push(`${at}: edge to undeclared node ${end}`);
        }
      }
    } else {
      problems.push(`${at}: not a subgraph, end, node or edge: ${JSON.stringify(line)}`);
    }
  });
  if (depth !== 0) {
    problems.push(`${depth} subgraph(s) not closed`);
  }
  return problems;
}
