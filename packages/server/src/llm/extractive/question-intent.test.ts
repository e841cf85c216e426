import { classifyQuestion } from './question-intent.js';

describe('the kind of answer a question asks for', () => {
  it.each([
    'How do I connect the widget to a server on another host?',
    'how to configure the rate limit',
    'What are the steps to deploy with docker compose?',
    "What's the easiest way to add a custom theme?",
    'Install the plugin on an existing site',
    'My script needs the whole answer at once. How?',
  ])('reads "%s" as a how-to', (question) => {
    expect(classifyQuestion(question)).toBe('how-to');
  });

  it.each([
    'Error: listen EADDRINUSE: address already in use 127.0.0.1:8000',
    "TypeError: Cannot read properties of undefined (reading 'map')\n    at render (src/App.tsx:12:7)",
    'The ingest fails with index_mismatch after I changed the model. What should I run?',
    'Readers get 429 errors after three questions',
    "The panel doesn't work on our staging site",
    'How do I fix ERR_REQUIRE_ESM when importing the plugin?',
  ])('reads "%s" as troubleshooting', (question) => {
    expect(classifyQuestion(question)).toBe('troubleshooting');
  });

  it.each([
    'What is a store enhancer?',
    'Why are reducers pure functions?',
    'When does /health return 503?',
    'How does the scope check decide a question is off topic?',
    'Which variable sets the port?',
    'How should errors be handled in thunks?',
  ])('reads "%s" as a question about what something is or does', (question) => {
    expect(classifyQuestion(question)).toBe('concept');
  });
});
