//! The faithfulness judge: the configured chat model reads the question, the retrieved context
//! and the answer, and rates how much of the answer the context supports.
//!
//! The prompt ([`JUDGE_PROMPT`]) asks for the share of the answer's factual statements that the
//! context states or directly implies, as one number from 0 to 1 in a JSON object: 1 when every
//! statement is supported (an answer that says the context does not tell is supported), 0 when
//! none is. Knowledge outside the context does not count as support, even when it is true. The
//! reply's first number is read ([`parse_verdict`]); a reply without one scores nothing (the
//! question is left out of the mean, and counted as unjudged).

use lightrag_engine::Engine;
use lightrag_ports::ChatRequest;

/// The judge's instructions; `{question}`, `{context}` and `{answer}` are filled in.
pub const JUDGE_PROMPT: &str = "You check answers against their sources.\n\n\
Below are a question, the context an assistant was given, and the assistant's answer. List for \
yourself the factual statements the answer makes. A statement is supported when the context \
states it or it follows directly from what the context states; knowledge that is not in the \
context does not count, even when it is true. An answer saying that the context does not contain \
the information is supported when that is so.\n\n\
Reply with one JSON object and nothing else: {\"faithfulness\": S}, where S is the share of the \
answer's statements that are supported, from 0 (none) to 1 (all).\n\n\
Question:\n{question}\n\nContext:\n{context}\n\nAnswer:\n{answer}\n";

/// The judge's request for one answer.
pub fn judge_request(question: &str, context: &str, answer: &str) -> ChatRequest {
    let prompt = JUDGE_PROMPT.replace("{question}", question).replace("{context}", context).replace("{answer}", answer);
    ChatRequest { prompt, ..ChatRequest::default() }
}

/// The score in a judge's reply: the first number in it, when between 0 and 1.
pub fn parse_verdict(reply: &str) -> Option<f64> {
    let start = reply.find(|c: char| c.is_ascii_digit())?;
    let number: String = reply[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    number.parse::<f64>().ok().filter(|v| (0.0..=1.0).contains(v))
}

/// Asks the engine's chat model to judge `answer`; `None` when the reply holds no score.
pub async fn judge(
    engine: &Engine,
    question: &str,
    context: &str,
    answer: &str,
) -> Result<Option<f64>, lightrag_engine::EngineError> {
    let reply = engine.complete(&judge_request(question, context, answer)).await?;
    Ok(parse_verdict(&reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_read_from_the_first_number() {
        assert_eq!(parse_verdict(r#"{"faithfulness": 0.75}"#), Some(0.75));
        assert_eq!(parse_verdict("```json\n{\"faithfulness\": 1}\n```"), Some(1.0));
        assert_eq!(parse_verdict("no idea"), None);
        assert_eq!(parse_verdict(r#"{"faithfulness": 7}"#), None, "out of range");
    }

    #[test]
    fn the_request_carries_question_context_and_answer() {
        let r = judge_request("Who?", "Ann met Bob.", "Ann");
        assert!(r.prompt.contains("Question:\nWho?") && r.prompt.contains("Context:\nAnn met Bob."));
        assert!(r.prompt.ends_with("Answer:\nAnn\n"));
    }
}
