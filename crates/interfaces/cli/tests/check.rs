//! `lightrag check`: a clean knowledge base checks clean; one damaged by hand (a lost vector, a
//! lost chunk, a vector without its entity, a document stuck in processing) is reported, and
//! `--repair` brings it back to the knowledge base a clean build gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{HARBOR, Kb, LIBRARY, WHALING, path_str};
use rusqlite::{Connection, OptionalExtension};

/// WHALING and HARBOR indexed; LIBRARY indexed too when `library_processed`, else only enqueued.
fn build(library_processed: bool) -> Kb {
    build_in(Kb::new(), library_processed)
}

/// [`build`] into `kb` (e.g. one whose store is PostgreSQL).
fn build_in(kb: Kb, library_processed: bool) -> Kb {
    let docs = kb.write_docs(&[("whaling.txt", WHALING), ("harbor.txt", HARBOR)]);
    kb.ok(&["insert", path_str(&docs)]);
    let library = kb.dir_docs("library", &[("library.txt", LIBRARY)]);
    if library_processed {
        kb.ok(&["insert", path_str(&library)]);
    } else {
        kb.ok(&["insert", "--no-wait", path_str(&library)]);
    }
    kb
}

fn db(kb: &Kb) -> Connection {
    Connection::open(kb.working_dir().join("lightrag.db")).unwrap()
}

/// `lightrag check ARGS --json`: exit success and the report.
fn check(kb: &Kb, args: &[&str]) -> (bool, serde_json::Value) {
    let mut all = vec!["check", "--json"];
    all.extend_from_slice(args);
    let out = kb.run(&all);
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("check printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.success(), report)
}

fn finding<'a>(findings: &'a serde_json::Value, kind: &str) -> Option<&'a serde_json::Value> {
    findings.as_array().unwrap().iter().find(|f| f["kind"] == kind)
}

/// The findings of the four damages both tests make: each found once, with its id, repairable.
fn assert_the_four_damages_found(findings: &serde_json::Value, lost_entity: &str, lost_chunk: &str, stuck: &str) {
    for (kind, id) in [
        ("entity_without_vector", lost_entity),
        ("missing_chunk", lost_chunk),
        ("orphan_entity_vector", "Nobody At All"),
        ("stuck_processing", stuck),
    ] {
        let f = finding(findings, kind).unwrap_or_else(|| panic!("no {kind} finding: {findings:#}"));
        assert_eq!((f["count"].as_u64(), f["ids"][0].as_str()), (Some(1), Some(id)), "{kind}: {f}");
        assert_eq!(f["repairable"], true, "{f}");
        assert!(!f["repair"].as_str().unwrap().is_empty());
    }
}

#[test]
fn a_clean_knowledge_base_checks_clean() {
    let kb = build(true);
    let (ok, report) = check(&kb, &[]);
    assert!(ok, "a clean build exits 0: {report:#}");
    assert_eq!(report["clean"], true);
    assert_eq!(report["findings"], serde_json::json!([]));
    let checked = &report["checked"];
    assert_eq!(checked["documents"], 3);
    assert!(checked["chunks"].as_u64().unwrap() >= 3 && checked["entities"].as_u64().unwrap() > 5, "{checked}");
    let (ok, report) = check(&kb, &["--repair"]);
    assert!(ok && report["repair"].is_null(), "nothing to repair: {report:#}");
    let text = kb.ok(&["check"]);
    assert!(text.contains("no problems"), "{text}");
}

#[test]
fn a_damaged_knowledge_base_is_reported_and_repaired_to_a_clean_build() {
    let expected = build(true).graph();

    let kb = build(false);
    let conn = db(&kb);
    let (lost_entity, lost_vector): (String, Vec<u8>) = conn
        .query_row("SELECT key, vector FROM vectors WHERE kind = 'entity' ORDER BY key LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    conn.execute("DELETE FROM vectors WHERE kind = 'entity' AND key = ?1", [&lost_entity]).unwrap();
    let (lost_chunk, chunk_text): (String, String) = conn
        .query_row(
            "SELECT c.id, c.content FROM chunks c JOIN doc_status d ON d.id = c.doc_id \
             WHERE d.status = 'processed' ORDER BY c.id LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    conn.execute("DELETE FROM chunks WHERE id = ?1", [&lost_chunk]).unwrap();
    conn.execute(
        "INSERT INTO vectors (id, kind, key, seq, vector, content) VALUES (7, 'entity', 'Nobody At All', 1, zeroblob(256), 'x')",
        [],
    )
    .unwrap();
    let stuck: String = conn.query_row("SELECT id FROM doc_status WHERE status = 'pending'", [], |r| r.get(0)).unwrap();
    conn.execute(
        "UPDATE doc_status SET status = 'processing', lease_owner = 'elsewhere/12345/abc', lease_until = 1 WHERE id = ?1",
        [&stuck],
    )
    .unwrap();
    drop(conn);

    let (ok, report) = check(&kb, &[]);
    assert!(!ok, "problems exit non-zero: {report:#}");
    assert_eq!(report["clean"], false);
    let findings = &report["findings"];
    assert_the_four_damages_found(findings, &lost_entity, &lost_chunk, &stuck);
    // the lost chunk's vector stays for the restored chunk: it is neither an orphan nor re-embedded
    assert!(finding(findings, "orphan_chunk_vector").is_none(), "{findings:#}");
    assert_eq!(findings.as_array().unwrap().len(), 4, "nothing else: {findings:#}");
    let text = kb.run(&["check"]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(!text.status.success() && stdout.contains("missing_chunk: 1") && stdout.contains(&lost_chunk), "{stdout}");
    assert!(String::from_utf8_lossy(&text.stderr).contains("lightrag check --repair"));

    let (ok, report) = check(&kb, &["--repair"]);
    assert!(ok, "repaired: {report:#}");
    assert_eq!(report["clean"], true);
    let summary = &report["repair"]["summary"];
    assert_eq!(
        (
            &summary["vectors_embedded"],
            &summary["vectors_deleted"],
            &summary["chunks_restored"],
            &summary["documents_reset"]
        ),
        (&serde_json::json!(1), &serde_json::json!(1), &serde_json::json!(1), &serde_json::json!(1)),
        "{summary}"
    );
    assert_eq!(report["repair"]["found"].as_array().unwrap().len(), 4);

    let conn = db(&kb);
    let vector: Vec<u8> = conn
        .query_row("SELECT vector FROM vectors WHERE kind = 'entity' AND key = ?1", [&lost_entity], |r| r.get(0))
        .unwrap();
    assert_eq!(vector, lost_vector, "the entity's vector is embedded again from its description");
    let restored: String =
        conn.query_row("SELECT content FROM chunks WHERE id = ?1", [&lost_chunk], |r| r.get(0)).unwrap();
    assert_eq!(restored, chunk_text, "the chunk is cut again from its document");
    let orphan: Option<i64> =
        conn.query_row("SELECT id FROM vectors WHERE key = 'Nobody At All'", [], |r| r.get(0)).optional().unwrap();
    assert_eq!(orphan, None, "the orphan vector is gone");
    let status: String = conn.query_row("SELECT status FROM doc_status WHERE id = ?1", [&stuck], |r| r.get(0)).unwrap();
    assert_eq!(status, "pending", "the stuck document waits to be processed again");
    drop(conn);

    kb.ok(&["process"]);
    assert!(check(&kb, &[]).0, "clean after processing");
    assert_eq!(kb.graph(), expected, "the repaired knowledge base has the graph of a clean build");
}

/// Regression (issue 26 item 12): a replacement that ended `failed` ("cancelled by user") while
/// its old chunks and graph still answered queries passed `check`. Now such a document is found,
/// and `--repair` gives it the previous version the store kept: `processed`, as before.
#[test]
fn a_failed_document_whose_chunks_answer_queries_is_found_and_given_its_previous_version_back() {
    let kb = build(true);
    let expected = kb.graph();
    let id = kb.doc_id("library.txt").unwrap();
    let (old_hash, old_text): (String, String) = db(&kb)
        .query_row(
            "SELECT s.content_hash, d.content FROM doc_status s JOIN documents d ON d.id = s.id WHERE s.id = ?1",
            [&id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // a new version waits (the store keeps the indexed one) …
    let edited = format!("{LIBRARY} The reading room closes in winter.");
    let library = kb.dir_docs("library", &[("library.txt", &edited)]);
    kb.ok(&["insert", "--no-wait", path_str(&library)]);
    assert!(check(&kb, &[]).0, "a waiting replacement is no problem");
    // … and ends as a cancelled one used to: failed, its old chunks still live
    db(&kb)
        .execute("UPDATE doc_status SET status = 'failed', error_msg = 'cancelled by user' WHERE id = ?1", [&id])
        .unwrap();

    let (ok, report) = check(&kb, &[]);
    assert!(!ok, "found: {report:#}");
    let f = finding(&report["findings"], "failed_with_chunks").unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!((f["count"].as_u64(), f["ids"][0].as_str()), (Some(1), Some(id.as_str())), "{f}");
    assert_eq!(f["repairable"], true, "{f}");
    assert_eq!(report["findings"].as_array().unwrap().len(), 1, "nothing else: {report:#}");

    let (ok, report) = check(&kb, &["--repair"]);
    assert!(ok, "repaired: {report:#}");
    assert_eq!(report["repair"]["summary"]["documents_restored"], 1, "{report:#}");
    let conn = db(&kb);
    let (status, hash, text): (String, String, String) = conn
        .query_row(
            "SELECT s.status, s.content_hash, d.content FROM doc_status s JOIN documents d ON d.id = s.id \
             WHERE s.id = ?1",
            [&id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((status.as_str(), hash, text), ("processed", old_hash, old_text), "the old version, whole");
    drop(conn);
    let status = kb.json(&["status", "--json"]);
    let row = status["documents"].as_array().unwrap().iter().find(|d| d["id"] == id.as_str()).unwrap().clone();
    assert_eq!(row["metadata"]["revisions"][0]["outcome"], "cancelled", "{row:#}");
    assert_eq!(kb.graph(), expected, "the old version's graph");
}

/// The same damage on PostgreSQL (the checks and repairs run through the store port, but each
/// store answers them with its own SQL): reported, repaired, and the graph of a clean build.
#[test]
fn on_postgres_a_damaged_knowledge_base_is_reported_and_repaired_to_a_clean_build() {
    let expected = build(true).graph();
    let url = common::pg::database_url();
    let workspace = common::pg::unique("cli_check");
    let mut pg = Kb::new();
    pg.set("DATABASE_URL", &url).set("POSTGRES_WORKSPACE", &workspace);
    let kb = build_in(pg, false);
    let (ok, report) = check(&kb, &[]);
    assert!(ok, "a clean build on PostgreSQL checks clean: {report:#}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (lost_entity, lost_chunk, stuck) = runtime.block_on(async {
        let db = sqlx::PgPool::connect(&url).await.unwrap();
        let one = |sql: &'static str| sqlx::query_scalar::<_, String>(sql).bind(&workspace).fetch_one(&db);
        let lost_entity =
            one("SELECT key FROM lrs_vectors WHERE workspace = $1 AND kind = 'entity' ORDER BY key LIMIT 1")
                .await
                .unwrap();
        let lost_chunk = one(
            "SELECT c.id FROM lrs_chunks c JOIN lrs_doc_status d ON d.workspace = c.workspace AND d.id = c.doc_id \
             WHERE c.workspace = $1 AND d.status = 'processed' ORDER BY c.id LIMIT 1",
        )
        .await
        .unwrap();
        let stuck = one("SELECT id FROM lrs_doc_status WHERE workspace = $1 AND status = 'pending'").await.unwrap();
        let run =
            |sql: &'static str, key: &str| sqlx::query(sql).bind(workspace.clone()).bind(key.to_string()).execute(&db);
        run("DELETE FROM lrs_vectors WHERE workspace = $1 AND kind = 'entity' AND key = $2", &lost_entity)
            .await
            .unwrap();
        run("DELETE FROM lrs_chunks WHERE workspace = $1 AND id = $2", &lost_chunk).await.unwrap();
        run(
            "INSERT INTO lrs_vectors (workspace, kind, key, dim, embedding, content) \
             SELECT workspace, kind, $2, dim, embedding, 'x' FROM lrs_vectors \
             WHERE workspace = $1 AND kind = 'entity' LIMIT 1",
            "Nobody At All",
        )
        .await
        .unwrap();
        run(
            "UPDATE lrs_doc_status SET status = 'processing', lease_owner = 'elsewhere/12345/abc', lease_until = 1 \
             WHERE workspace = $1 AND id = $2",
            &stuck,
        )
        .await
        .unwrap();
        (lost_entity, lost_chunk, stuck)
    });

    let (ok, report) = check(&kb, &[]);
    assert!(!ok, "problems exit non-zero: {report:#}");
    let findings = &report["findings"];
    assert_the_four_damages_found(findings, &lost_entity, &lost_chunk, &stuck);
    assert_eq!(findings.as_array().unwrap().len(), 4, "nothing else: {findings:#}");

    let (ok, report) = check(&kb, &["--repair"]);
    assert!(ok, "repaired: {report:#}");
    assert_eq!(report["clean"], true);
    kb.ok(&["process"]);
    assert!(check(&kb, &[]).0, "clean after processing");
    assert_eq!(kb.graph(), expected, "the repaired knowledge base has the graph of a clean build");
}

/// Vectors holding NaN, infinite values or only zeros (written into the file by hand: writes
/// refuse them now, but a store written before, or a LightRAG import before, may hold some):
/// queries still rank the others and never return them, `check` finds each (with the record it
/// belongs to), and `--repair` embeds them again from their records.
#[test]
fn check_finds_and_repair_reembeds_non_finite_vectors() {
    let kb = build(true);
    let conn = db(&kb);
    let row = |sql: &str| -> (String, Vec<u8>) { conn.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap() };
    let (chunk, chunk_vector) = row("SELECT v.key, v.vector FROM vectors v JOIN chunks c ON c.id = v.key \
         WHERE v.kind = 'chunk' AND c.content LIKE '%Bodleian%' LIMIT 1");
    let (entity, entity_vector) = row("SELECT key, vector FROM vectors WHERE kind = 'entity' ORDER BY key LIMIT 1");
    let (relation, relation_vector) =
        row("SELECT key, vector FROM vectors WHERE kind = 'relation' ORDER BY key LIMIT 1");
    let floats = |blob: &[u8]| -> Vec<f32> {
        blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
    };
    let blob = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let nan = vec![f32::NAN; chunk_vector.len() / 4];
    let zero = vec![0f32; entity_vector.len() / 4];
    let mut inf = floats(&relation_vector);
    inf[0] = f32::INFINITY;
    for (kind, key, v) in [("chunk", &chunk, nan), ("entity", &entity, zero), ("relation", &relation, inf)] {
        let changed = conn
            .execute(
                "UPDATE vectors SET vector = ?1 WHERE kind = ?2 AND key = ?3",
                rusqlite::params![blob(&v), kind, key],
            )
            .unwrap();
        assert_eq!(changed, 1);
    }
    drop(conn);
    // the in-memory indexes are built again from the rows
    let snapshots = kb.working_dir().join("lightrag.db.vectors");
    assert!(snapshots.is_dir(), "the index snapshots are where the store keeps them");
    std::fs::remove_dir_all(&snapshots).unwrap();

    let answer = kb.json(&["query", "--mode", "naive", "--json", "Who sailed on the Pequod from Nantucket?"]);
    let chunks: Vec<&str> =
        answer["data"]["chunks"].as_array().unwrap().iter().map(|c| c["chunk_id"].as_str().unwrap()).collect();
    assert!(!chunks.is_empty() && !chunks.contains(&chunk.as_str()), "the NaN chunk is never ranked: {chunks:?}");

    let (ok, report) = check(&kb, &[]);
    assert!(!ok, "problems exit non-zero: {report:#}");
    let findings = &report["findings"];
    let shown_relation = relation.replace('\u{1f}', " — ");
    for (kind, count, ids) in [
        ("non_finite_vector", 2, vec![format!("relation {shown_relation}"), format!("chunk {chunk}")]),
        ("zero_vector", 1, vec![format!("entity {entity}")]),
    ] {
        let f = finding(findings, kind).unwrap_or_else(|| panic!("no {kind} finding: {findings:#}"));
        assert_eq!(f["count"], count, "{f}");
        let mut got: Vec<String> =
            f["ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        let mut want = ids.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{f}");
        assert_eq!(f["repairable"], true, "{f}");
    }
    assert_eq!(findings.as_array().unwrap().len(), 2, "nothing else: {findings:#}");

    let (ok, report) = check(&kb, &["--repair"]);
    assert!(ok, "repaired: {report:#}");
    assert_eq!(report["repair"]["summary"]["vectors_embedded"], 3, "{report:#}");
    assert_eq!(report["clean"], true);
    let conn = db(&kb);
    for (kind, key, before) in
        [("chunk", &chunk, chunk_vector), ("entity", &entity, entity_vector), ("relation", &relation, relation_vector)]
    {
        let now: Vec<u8> = conn
            .query_row("SELECT vector FROM vectors WHERE kind = ?1 AND key = ?2", [kind, key.as_str()], |r| r.get(0))
            .unwrap();
        assert_eq!(now, before, "{kind} {key}: embedded again from its record, as it was");
    }
}

/// `lightrag copy` refuses a NaN vector of the source: its record comes over without one, the
/// report counts it, and `check --repair` on the target embeds it from the record.
#[test]
fn a_copy_leaves_nan_vectors_out_and_check_repair_embeds_them_in_the_target() {
    let kb = build(true);
    let conn = db(&kb);
    let (entity, original): (String, Vec<u8>) = conn
        .query_row("SELECT key, vector FROM vectors WHERE kind = 'entity' ORDER BY key LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    let nan: Vec<u8> = (0..original.len() / 4).flat_map(|_| f32::NAN.to_le_bytes()).collect();
    conn.execute("UPDATE vectors SET vector = ?1 WHERE kind = 'entity' AND key = ?2", rusqlite::params![nan, entity])
        .unwrap();
    drop(conn);
    std::fs::remove_dir_all(kb.working_dir().join("lightrag.db.vectors")).unwrap();

    let target = kb.dir.path().join("copied");
    let (from, to) = (format!("sqlite:{}", kb.working_dir().display()), format!("sqlite:{}", target.display()));
    let report = kb.json(&["copy", "--from", &from, "--to", &to, "--json"]);
    assert_eq!(report["documents_copied"], 3, "{report}");
    assert_eq!(report["vectors_missing"], 1, "{report}");
    let text = kb.ok(&["copy", "--from", &from, "--to", &to]);
    assert!(!text.contains("without a vector"), "a second run copies nothing more: {text}");

    let in_target = |args: &[&str]| -> (bool, serde_json::Value) {
        let out = kb.cmd().env("WORKING_DIR", &target).args(args).output().unwrap();
        let report = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.success(), report)
    };
    let (ok, report) = in_target(&["check", "--json"]);
    assert!(!ok, "{report:#}");
    let findings = &report["findings"];
    let f = finding(findings, "entity_without_vector").unwrap_or_else(|| panic!("{findings:#}"));
    assert_eq!((f["count"].as_u64(), f["ids"][0].as_str()), (Some(1), Some(entity.as_str())), "{f}");
    assert_eq!(findings.as_array().unwrap().len(), 1, "nothing else: {findings:#}");
    let (ok, report) = in_target(&["check", "--repair", "--json"]);
    assert!(ok && report["clean"] == true, "{report:#}");
    let copied = Connection::open(target.join("lightrag.db")).unwrap();
    let now: Vec<u8> = copied
        .query_row("SELECT vector FROM vectors WHERE kind = 'entity' AND key = ?1", [&entity], |r| r.get(0))
        .unwrap();
    assert_eq!(now, original, "embedded again from the entity's description");
}
