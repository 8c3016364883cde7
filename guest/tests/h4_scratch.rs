use engram_guest::write::detect::secrets::{find_personal, find_secrets};
#[test]
fn scratch() {
    for t in [
        "For later: public_key = \"9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit\"",
        "记一下这个配置项：-e SUMO_ACCESS_KEY=`etcdctl get /sumologic_secret`",
        "构建配置里有这一行，迁移时要用：schemaKey = 'DOC_Vector_5_32'",
    ] {
        println!("{t}\n  {:?}\n  {:?}", find_secrets(t), find_personal(t));
    }
}
