//! Typed extraction through the REST API: the per-document schema report in the documents routes.

use crate::common::{Harness, TEXT_A};

#[tokio::test]
async fn the_documents_routes_show_what_the_schema_changed() {
    // a schema of names: the scripted model's relation keywords name no relation type of it
    let h =
        Harness::new(&[("ENTITY_TYPES", r#"["Person","Organization","Location"]"#), ("RELATION_TYPES", "works_at")])
            .await;
    let track = h.insert(TEXT_A, "a.txt", &[]).await;
    let report = &track["documents"][0]["metadata"]["extraction_schema"];
    assert!(report["relations_dropped"]["unknown_type"].as_u64().unwrap() >= 1, "{track}");
    assert_eq!(report["relations_dropped"]["endpoint_types"], 0, "{track}");
    assert!(report["types_remapped"].is_u64() && report["typed_other"].is_u64(), "{track}");

    let all = h.get("/documents").await.json();
    assert_eq!(&all["statuses"]["processed"][0]["metadata"]["extraction_schema"], report, "{all}");
    let page = h.post("/documents/paginated", serde_json::json!({"page": 1, "page_size": 10})).await.json();
    assert_eq!(&page["documents"][0]["metadata"]["extraction_schema"], report, "{page}");
}
