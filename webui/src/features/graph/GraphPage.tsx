// Placeholder: being built.
export function GraphPage({ active }: { active: boolean }) {
  return <div className="placeholder">{active ? 'GraphPage' : null}</div>;
}
