export function Loading(props: { label: string }) {
  return (
    <div class="loading" role="status" data-testid="loading">
      <span class="spinner" aria-hidden="true" />
      <span>{props.label}</span>
    </div>
  );
}
