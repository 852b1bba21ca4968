// Placeholder: being built.
export function RetrievalPage({ active }: { active: boolean }) {
  return <div className="placeholder">{active ? 'RetrievalPage' : null}</div>;
}
