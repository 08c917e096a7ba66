// The view for any path that is not a session link.
export function NotFound() {
  document.title = 'Page not found';
  return (
    <main class="page">
      <section class="card" data-testid="not-found">
        <h1>Page not found</h1>
        <p>
          There is nothing at this address. If you were sent a verification link, check that you opened all of
          it.
        </p>
      </section>
    </main>
  );
}
