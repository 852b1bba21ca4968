// Placeholder: being built.
export function DocumentsPage({ active }: { active: boolean }) {
  return <div className="placeholder">{active ? 'DocumentsPage' : null}</div>;
}
