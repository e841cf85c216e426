/** The golden question file format (see ../shared/eval/redux.questions.json). */
import fs from 'node:fs/promises';

export interface ExpectedSection {
  /** Path relative to the docs folder. */
  file: string;
  /** Heading text as in the markdown (without `#` and `{#id}`), or null for the page's intro. */
  heading: string | null;
}

export interface GoldenQuestion {
  id: string;
  question: string;
  in_scope: boolean;
  expected: ExpectedSection[];
  answer_keywords?: string[];
  kind?: string;
}

export async function readQuestionSet(file: string): Promise<GoldenQuestion[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `Cannot read the question file ${file}: ${(error as Error).message}. Pass a JSON array of questions with --questions FILE.`,
    );
  }
  if (!Array.isArray(parsed)) throw new Error(`${file} must hold a JSON array of questions.`);
  return parsed.map((entry, index) => {
    const question = entry as Partial<GoldenQuestion>;
    if (typeof question.question !== 'string' || typeof question.in_scope !== 'boolean' || !Array.isArray(question.expected)) {
      throw new Error(`Question #${index + 1} in ${file} needs "question" (string), "in_scope" (boolean) and "expected" (array).`);
    }
    return { ...question, id: question.id ?? `q${index + 1}` } as GoldenQuestion;
  });
}
