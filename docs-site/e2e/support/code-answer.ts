// A realistic model answer for the widget's layout tests and the widget guide's screenshots.

/**
 * What a real model answers to a set-up question: prose with citations, code blocks holding long
 * command lines, a long unbroken identifier and URL, and a table. Extractive answers hold none of
 * these, which is how layout bugs hid from the offline demo.
 */
export const CODE_ANSWER = [
  'To store vectors in Qdrant, set the vector store variables before you start the server [1]:',
  '',
  '```bash',
  'VECTOR_STORE=qdrant QDRANT_URL=http://qdrant.internal.example:6333 QDRANT_API_KEY=change-me-to-a-long-random-secret pnpm docs-chat serve --port 8000',
  '```',
  '',
  'Then run the ingest again so the collection is filled, and check it from a script [2]:',
  '',
  '```ts',
  "const response = await fetch('http://127.0.0.1:8000/search?q=vector%20store&limit=5', { headers: { accept: 'application/json', authorization: `Bearer ${process.env.ADMIN_TOKEN}` } });",
  'console.log(await response.json());',
  '```',
  '',
  '| Variable | Default | Meaning |',
  '| --- | --- | --- |',
  '| `VECTOR_STORE` | `embedded` | `qdrant` stores vectors in the Qdrant server at QDRANT_URL |',
  '| `QDRANT_URL` | `http://localhost:6333` | https://qdrant.internal.example:6333/collections/docs-chat-production-index/points/search |',
  '',
  'Long names such as DOCS_CHAT_EMBEDDING_CACHE_DIRECTORY_FOR_THE_PRODUCTION_DEPLOYMENT_OF_THE_SERVER and https://docs.example.com/a/very/long/path/without/any/spaces/in/it/at/all/index.html wrap instead of widening the panel [1].',
].join('\n');
/** A question long enough to fill the reader's bubble. */
export const CODE_QUESTION = 'How do I switch the vector store to Qdrant and check that the collection was filled?';
