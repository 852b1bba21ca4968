//! Every prompt the engine sends, in one place.
//!
//! The wording is ours; the *layout* follows LightRAG's so recorded outputs, test doubles and
//! side-by-side benchmarks work for both systems (see DESIGN.md, "Prompt contract"):
//! * extraction: records separated by newlines, fields by [`TUPLE_DELIMITER`], ending with
//!   [`COMPLETION_DELIMITER`]; the chunk follows a `---Input Text---` line inside a fenced block;
//! * summary: `Name: …` and `Description List:` followed by a fenced block of JSON lines;
//! * keywords: asks for `high_level_keywords` / `low_level_keywords`, question after `User Query:`;
//! * answer: the retrieved context goes into the system prompt.

mod schema;

use crate::indexing::extract::schema::ExtractionSchema;

/// Field separator of extraction records.
pub const TUPLE_DELIMITER: &str = "<|#|>";
/// Marks the end of an extraction answer.
pub const COMPLETION_DELIMITER: &str = "<|COMPLETE|>";
/// The answer when retrieval found nothing.
pub const FAIL_RESPONSE: &str = "Sorry, I'm not able to provide an answer to that question.[no-context]";

/// Inputs of the extraction system prompt.
pub struct ExtractionPromptInput<'a> {
    /// Entity types to prefer.
    pub entity_types: &'a [String],
    /// Output language.
    pub language: &'a str,
    /// Cap on rows.
    pub max_records: usize,
    /// Cap on entity rows.
    pub max_entities: usize,
    /// Typed extraction: the schema replaces `entity_types` in the prompt and adds relation types
    /// (`None`: the LightRAG-compatible prompt).
    pub schema: Option<&'a ExtractionSchema>,
}

/// The system prompt for entity and relation extraction.
pub fn extraction_system(input: &ExtractionPromptInput<'_>) -> String {
    let d = TUPLE_DELIMITER;
    let c = COMPLETION_DELIMITER;
    let types = schema::types_block(input.entity_types, input.schema);
    let keywords_rule = schema::keywords_rule(input.schema);
    let example = schema::record_example(input.schema);
    format!(
        "---Role---\n\
You build a knowledge graph. You read a passage and list the named things it talks about \
(entities) and how they are connected (relations).\n\
\n\
---Instructions---\n\
1. Entities. For each distinct entity write one line:\n\
   entity{d}<name>{d}<type>{d}<description>\n\
   - name: the entity's proper name as used in the text; use title case for names written in a \
Latin script, and the same spelling every time the entity appears.\n\
   - type: one of the entity types below; if none fits, use Other.\n\
   - description: one or two sentences, based only on the passage, saying what the entity is and \
what the passage says about it.\n\
2. Relations. For each pair of entities that the passage connects write one line:\n\
   relation{d}<source name>{d}<target name>{d}<keywords>{d}<description>\n\
   - relations are undirected; do not list the same pair twice;\n\
   - a statement about three or more entities becomes several pairwise relations;\n\
{keywords_rule}\
   - description: one sentence explaining the link, based only on the passage.\n\
3. Write every entity line first, then every relation line. Both names of a relation must appear \
as entities.\n\
4. Write in the third person; never use pronouns such as \"this article\", \"I\" or \"you\" as names.\n\
5. Write at most {max_records} lines in total and at most {max_entities} entity lines; keep the most \
important ones.\n\
6. Write names and descriptions in {language}; keep proper nouns in their original language.\n\
7. Use exactly `{d}` between fields and nothing else. Do not number lines, do not add commentary, \
do not wrap the output in code fences.\n\
8. After the last line write {c} on a line of its own.\n\
\n\
{types}\
\n\
---Output Format Example---\n\
{example}",
        max_records = input.max_records,
        max_entities = input.max_entities,
        language = input.language,
    )
}

/// The user prompt carrying one chunk.
pub fn extraction_user(chunk: &str) -> String {
    format!(
        "---Task---\n\
List the entities and relations of the passage below, following the instructions and the \
format exactly.\n\
\n\
---Input Text---\n\
```\n{chunk}\n```\n\
\n\
---Output---\n"
    )
}

/// The gleaning prompt: sent after the first exchange to catch what was missed.
pub fn extraction_glean() -> String {
    format!(
        "---Task---\n\
Read the passage again. List only entities and relations that your previous answer missed or \
wrote in a wrong format, in exactly the same line format. Do not repeat lines that were correct. \
End with {COMPLETION_DELIMITER}.\n\
\n\
---Output---\n"
    )
}

/// The system prompt of JSON extraction (`ENTITY_EXTRACTION_USE_JSON`): the same task as
/// [`extraction_system`], answered as one JSON object with `entities` and `relationships`.
pub fn extraction_json_system(input: &ExtractionPromptInput<'_>) -> String {
    let types = schema::types_block(input.entity_types, input.schema);
    let keywords_rule = schema::keywords_rule(input.schema);
    let example = schema::json_example(input.schema);
    format!(
        "---Role---\n\
You build a knowledge graph. You read a passage and list the named things it talks about \
(entities) and how they are connected (relations).\n\
\n\
---Instructions---\n\
1. Entities. For each distinct entity give an object with:\n\
   - name: the entity's proper name as used in the text; title case for names written in a Latin \
script, and the same spelling every time;\n\
   - type: one of the entity types below; if none fits, Other;\n\
   - description: one or two sentences, based only on the passage.\n\
2. Relations. For each pair of entities that the passage connects give an object with:\n\
   - source and target: the two entity names, spelled exactly as in the entity list;\n\
{keywords_rule}\
   - description: one sentence explaining the link, based only on the passage.\n\
   Relations are undirected: do not list the same pair twice. A statement about three or more \
entities becomes several pairwise relations.\n\
3. Write in the third person; never use pronouns such as \"this article\", \"I\" or \"you\" as names.\n\
4. Give at most {max_records} objects in total and at most {max_entities} entities; keep the most \
important ones. Both names of a relation must be among the entities.\n\
5. Write names, keywords and descriptions in {language}; keep proper nouns in their original \
language.\n\
6. Answer with one valid JSON object that has exactly two arrays, \"entities\" and \
\"relationships\", and nothing else: no code fences, no commentary. Escape quotes, backslashes \
and newlines inside strings (a LaTeX command such as \\frac is written \"\\\\frac\").\n\
\n\
{types}\
\n\
---Output Format Example---\n\
{example}",
        max_records = input.max_records,
        max_entities = input.max_entities,
        language = input.language,
    )
}

/// The JSON-mode user prompt carrying one chunk.
pub fn extraction_json_user(chunk: &str) -> String {
    format!(
        "---Task---\n\
List the entities and relations of the passage below as the JSON object described in the \
instructions.\n\
\n\
---Input Text---\n\
```\n{chunk}\n```\n\
\n\
---Output---\n"
    )
}

/// The JSON-mode gleaning prompt.
pub fn extraction_json_glean() -> String {
    "---Task---\n\
Read the passage again. Answer with the same JSON object layout, listing only the entities and \
relations that your previous answer missed or described wrongly. If nothing was missed, answer \
{\"entities\": [], \"relationships\": []}.\n\
\n\
---Output---\n"
        .to_string()
}

/// Whether a summary describes an entity or a relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryKind {
    /// An entity.
    Entity,
    /// A relation.
    Relation,
}

/// The prompt that merges several descriptions of one entity or relation into one.
pub fn summarize_descriptions(
    kind: SummaryKind,
    name: &str,
    descriptions: &[String],
    length_tokens: usize,
    language: &str,
) -> String {
    let what = match kind {
        SummaryKind::Entity => "entity",
        SummaryKind::Relation => "relation",
    };
    let lines: Vec<String> = descriptions.iter().map(|d| serde_json::json!({ "Description": d }).to_string()).collect();
    format!(
        "---Role---\n\
You edit a knowledge graph. Several passages described the same {what}; write one description \
that keeps every distinct fact.\n\
\n\
---Instructions---\n\
- Use only the facts in the list; merge repeated facts; if the descriptions contradict each \
other, say so.\n\
- Write in the third person, start with the {what}'s name, and keep it under about \
{length_tokens} tokens.\n\
- Write in {language}; keep proper nouns in their original language.\n\
- Answer with the description text only.\n\
\n\
---Input---\n\
Name: {name}\n\
Description List:\n\
```\n{}\n```\n\
\n\
---Output---\n",
        lines.join("\n")
    )
}

/// The prompt that asks whether two entities of the graph are one thing, answered with one word,
/// `yes` or `no` (`graph resolve --confirm`). Each entity is given as (name, description).
pub fn same_entity(first: (&str, &str), second: (&str, &str)) -> String {
    format!(
        "---Role---\n\
You check a knowledge graph for duplicate entries.\n\
\n\
---Instructions---\n\
The two entries below were flagged because their names or descriptions look alike. Decide \
whether both names stand for one and the same real-world thing: the same person, place, \
organisation, work, event or idea.\n\
- Things that are only related are not the same: a person and a relative, a city and its \
university, a country and its army, a book and its sequel, a title and its holder.\n\
- Two things of the same kind are not the same (two cities, two people with one surname).\n\
- Judge from the names and descriptions given; if they do not show that it is one thing, answer \
no.\n\
- Answer with one word: yes or no.\n\
\n\
---Entry A---\n\
Name: {}\n\
Description:\n{}\n\
\n\
---Entry B---\n\
Name: {}\n\
Description:\n{}\n\
\n\
---Answer---\n",
        first.0, first.1, second.0, second.1
    )
}

/// The prompt that turns a question into search keywords (answered as JSON).
pub fn keywords(query: &str, language: &str) -> String {
    format!(
        "---Role---\n\
You prepare searches over a knowledge graph.\n\
\n\
---Instructions---\n\
Read the user query and answer with a JSON object with exactly two keys:\n\
- \"high_level_keywords\": broad themes, concepts or questions the query is about;\n\
- \"low_level_keywords\": specific names, things, places, dates or terms it mentions.\n\
Each value is a list of short strings in {language} (keep proper nouns as written). If the query \
is too vague to search for, both lists are empty. Answer with the JSON object only.\n\
\n\
---Example---\n\
User Query:\n\
How did the railway change trade in the American West?\n\
\n\
Output:\n\
{{\"high_level_keywords\": [\"railway\", \"trade\", \"economic change\"], \"low_level_keywords\": \
[\"American West\", \"railway\"]}}\n\
\n\
---Real Data---\n\
User Query:\n\
{query}\n\
\n\
Output:\n"
    )
}

/// The prompt that splits a multi-hop question into the simpler questions whose answers it
/// chains (answered as JSON `{"sub_questions": [...]}`; `QUERY_DECOMPOSITION`, `query::decompose`).
/// Our own: LightRAG has no such step, and its modes never send it.
pub fn decompose_question(question: &str) -> String {
    format!(
        "---Role---\n\
You plan searches over a collection of documents.\n\
\n\
---Instructions---\n\
Read the question. If answering it needs facts from more than one document (one fact leading to \
the next, or two things compared), split it into the simple questions to look up, in order, each \
one answerable from a single document; name the things each one is about as the question does. \
If the question is already simple, the list is empty. Answer with a JSON object with exactly one \
key, \"sub_questions\", whose value is a list of at most 4 short questions. Answer with the JSON \
object only.\n\
\n\
---Example---\n\
Question:\n\
Where was the director of the film Inception born?\n\
\n\
Output:\n\
{{\"sub_questions\": [\"Who directed the film Inception?\", \"Where was that director born?\"]}}\n\
\n\
---Real Data---\n\
Question:\n\
{question}\n\
\n\
Output:\n"
    )
}

/// The system prompt of a knowledge-graph answer; `context` is the retrieved context block.
pub fn rag_answer_system(context: &str, response_type: &str, user_prompt: Option<&str>) -> String {
    answer_system("the knowledge graph and document chunks", context, response_type, user_prompt)
}

/// The system prompt of a plain-RAG (naive mode) answer.
pub fn naive_answer_system(context: &str, response_type: &str, user_prompt: Option<&str>) -> String {
    answer_system("the document chunks", context, response_type, user_prompt)
}

fn answer_system(source: &str, context: &str, response_type: &str, user_prompt: Option<&str>) -> String {
    let extra = user_prompt.map(str::trim).filter(|p| !p.is_empty()).unwrap_or("n/a");
    format!(
        "---Role---\n\
You answer questions using only the context below, retrieved from {source}.\n\
\n\
---Instructions---\n\
- Answer from the context only. If it does not contain the answer, say that you do not know; \
never invent facts.\n\
- Take the conversation so far into account.\n\
- Answer in the language of the question, formatted as Markdown, as: {response_type}.\n\
- Each document chunk has a reference_id that points into the Reference Document List. At the \
end, add a section `### References` listing at most 5 documents you actually used, one per line, \
as `- [n] Document Title`. Write nothing after the references.\n\
- Additional instructions: {extra}\n\
\n\
---Context---\n\
{context}\n"
    )
}

/// The full prompt as returned by `only_need_prompt`.
pub fn full_prompt(system: &str, query: &str) -> String {
    format!("{system}\n\n---User Query---\n\n{query}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction_prompts_follow_the_layout_contract() {
        let types = vec!["Person".to_string()];
        let sys = extraction_system(&ExtractionPromptInput {
            entity_types: &types,
            language: "English",
            max_records: 100,
            max_entities: 40,
            schema: None,
        });
        assert!(sys.contains(TUPLE_DELIMITER) && sys.contains(COMPLETION_DELIMITER));
        let user = extraction_user("Some text.");
        assert!(user.contains("---Input Text---\n```\nSome text.\n```\n"));
        assert!(!extraction_glean().contains("---Input Text---"));
    }

    fn default_input(types: &[String]) -> ExtractionPromptInput<'_> {
        ExtractionPromptInput {
            entity_types: types,
            language: "English",
            max_records: 100,
            max_entities: 40,
            schema: None,
        }
    }

    #[test]
    fn extraction_prompts_without_a_schema_are_unchanged() {
        // golden files written from the prompts before typed extraction existed: LightRAG
        // compatibility (recorded outputs, LLM cache keys) needs them byte for byte
        let types = crate::config::default_entity_types();
        assert_eq!(extraction_system(&default_input(&types)), include_str!("prompts/golden/extraction_system.txt"));
        assert_eq!(
            extraction_json_system(&default_input(&types)),
            include_str!("prompts/golden/extraction_json_system.txt")
        );
    }

    #[test]
    fn extraction_prompts_carry_the_schema() {
        use crate::indexing::extract::schema::{EntityTypeSpec, RelationTypeSpec};
        let schema = ExtractionSchema {
            entity_types: vec![
                EntityTypeSpec { name: "Person".into(), description: "A human being.".into() },
                EntityTypeSpec { name: "Organization".into(), description: "A company or agency.".into() },
            ],
            relation_types: vec![RelationTypeSpec {
                name: "works_for".into(),
                description: "Employment.".into(),
                from: vec!["Person".into()],
                to: vec!["Organization".into()],
            }],
        };
        let types = schema.entity_type_names();
        let input = ExtractionPromptInput { schema: Some(&schema), ..default_input(&types) };
        for sys in [extraction_system(&input), extraction_json_system(&input)] {
            assert!(
                sys.contains("---Entity Types---\n- Person: A human being.\n- Organization: A company or agency.\n")
            );
            assert!(sys.contains("---Relation Types---\n- works_for (between Person and Organization): Employment.\n"));
            assert!(sys.contains("- keywords: first the relation type"), "{sys}");
            assert!(!sys.contains("Ada Lovelace"), "the example uses the schema's types: {sys}");
        }
        let records = extraction_system(&input);
        assert!(records.contains("relation<|#|>Name One<|#|>Name Two<|#|>works_for, keyword, keyword<|#|>"));
        assert!(records.contains("entity<|#|>Name Two<|#|>Organization<|#|>"));
        // the JSON example is valid JSON and reads back through the parser with the type as keyword
        let json = extraction_json_system(&input);
        let example = json.split("---Output Format Example---\n").nth(1).unwrap();
        let parsed = crate::indexing::extract::json::parse_any_extraction(
            example,
            crate::indexing::extract::parse::RecordLimits { max_records: 10, max_entities: 10 },
        );
        assert_eq!(parsed.relations.len(), 1, "{example}");
        assert!(parsed.relations[0].keywords.starts_with("works_for,"));
    }

    #[test]
    fn summary_prompt_has_name_and_json_lines() {
        let p = summarize_descriptions(
            SummaryKind::Entity,
            "Ahab",
            &["A captain.".into(), "Says \"hi\".".into()],
            600,
            "English",
        );
        assert!(p.contains("Name: Ahab\nDescription List:\n```\n{\"Description\":\"A captain.\"}\n"));
        assert!(p.contains(r#"{"Description":"Says \"hi\"."}"#));
    }

    #[test]
    fn keyword_prompt_carries_the_query_after_user_query() {
        let p = keywords("Who is Ahab?", "English");
        assert!(p.contains("high_level_keywords") && p.contains("low_level_keywords"));
        assert!(p.contains("User Query:\nWho is Ahab?\n\n"));
    }
}
