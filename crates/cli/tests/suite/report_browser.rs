//! `agentctx report` opened in a real headless Chromium (Debian's `chromium`, driven through
//! its `chromedriver` over WebDriver): the index lists the bundled sessions, its headers sort
//! and its filter box filters, a session page draws its timeline and loads a request's body when
//! it is expanded, and no page logs an error or throws. Screenshots of the index, of the Codex
//! sample's page and of that page with a body expanded are written to `/tmp/report-shots/`.
//!
//! Without `chromium` and `chromedriver` on the PATH the test says why and passes, unless
//! `AGENTCTX_REQUIRE_BROWSER` is set (CI sets it, and `cargo xtask tools` installs both).

use std::net::TcpListener;
use std::net::TcpStream;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use fantoccini::Client;
use fantoccini::ClientBuilder;
use fantoccini::Locator;
use fantoccini::wd::WebDriverCompatibleCommand;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::report::report;

/// Where the screenshots go, for a person to look at.
const SHOTS_DIR: &str = "/tmp/report-shots";

/// The flags Chromium runs headless with on a machine without a display or network.
const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
];

/// A program on the PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// chromedriver, killed when dropped.
struct Driver {
    child: std::process::Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_driver(chromedriver: &Path) -> Driver {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    #[expect(
        clippy::disallowed_methods,
        reason = "the test starts the browser's driver; the cli has no process helper"
    )]
    let child = std::process::Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    driver
}

/// chromedriver's browser log (`goog:loggingPrefs`), read and emptied.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({"type": "browser"}).to_string()),
        )
    }
}

/// The messages of level SEVERE (console errors, uncaught exceptions, failed loads) logged
/// since the last call.
async fn severe_messages(client: &Client) -> Vec<String> {
    let log = client.issue_cmd(BrowserLog).await.unwrap();
    log.as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["level"] == "SEVERE")
        .map(|entry| entry["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Runs `script` in the page and returns its value.
async fn eval(client: &Client, script: &str) -> Value {
    client.execute(script, Vec::new()).await.unwrap()
}

/// Waits until `script` returns true.
async fn wait_for(client: &Client, script: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while eval(client, script).await != Value::Bool(true) {
        assert!(Instant::now() < deadline, "never true: {script}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The texts of the visible rows' cells in `column` of the session table.
const VISIBLE_COLUMN: &str = "return Array.from(document.querySelectorAll('#sessions tbody tr')).filter(r => !r.hidden).map(r => r.cells[arguments[0]].getAttribute('data-v'));";

async fn visible_column(client: &Client, column: usize) -> Vec<String> {
    let values = client
        .execute(VISIBLE_COLUMN, vec![json!(column)])
        .await
        .unwrap();
    serde_json::from_value(values).unwrap()
}

async fn header_index(client: &Client, heading: &str) -> usize {
    let index = client
        .execute(
            "return Array.from(document.querySelectorAll('#sessions thead th')).findIndex(th => th.textContent === arguments[0]);",
            vec![json!(heading)],
        )
        .await
        .unwrap();
    usize::try_from(index.as_i64().unwrap()).unwrap()
}

async fn click_header(client: &Client, heading: &str) {
    client
        .find(Locator::XPath(&format!(
            "//table[@id='sessions']//th[text()='{heading}']"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn screenshot(client: &Client, name: &str) {
    std::fs::create_dir_all(SHOTS_DIR).unwrap();
    let png = client.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    std::fs::write(Path::new(SHOTS_DIR).join(name), png).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_sorts_filters_draws_and_loads_bodies_in_chromium() {
    let (Some(chromium), Some(chromedriver)) = (on_path("chromium"), on_path("chromedriver"))
    else {
        assert!(
            std::env::var_os("AGENTCTX_REQUIRE_BROWSER").is_none(),
            "AGENTCTX_REQUIRE_BROWSER is set but chromium or chromedriver is not on the PATH"
        );
        println!(
            "skipped: chromium and chromedriver are not installed (apt-get install chromium chromium-driver, or cargo xtask tools)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    report(&out, dir.path(), &["examples/sessions"])
        .assert()
        .success();
    let profile = dir.path().join("chromium-profile");
    let driver = start_driver(&chromedriver);
    let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(ToString::to_string).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let capabilities: serde_json::Map<String, Value> = serde_json::from_value(json!({
        "goog:chromeOptions": {"binary": chromium, "args": args},
        "goog:loggingPrefs": {"browser": "ALL"},
    }))
    .unwrap();
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .unwrap();

    // The index lists the three bundled sessions.
    let index = url::Url::from_file_path(out.join("index.html")).unwrap();
    client.goto(index.as_str()).await.unwrap();
    wait_for(
        &client,
        "return document.getElementById('shown').textContent === '3 of 3 sessions';",
    )
    .await;
    let tool = header_index(&client, "Tool").await;
    let mut tools = visible_column(&client, tool).await;
    tools.sort();
    assert_eq!(tools, ["Claude Code", "Claude Code", "Codex"]);

    // A header sorts its column, ascending then descending.
    let requests = header_index(&client, "Requests").await;
    click_header(&client, "Requests").await;
    let ascending: Vec<u64> = visible_column(&client, requests)
        .await
        .iter()
        .map(|value| value.parse().unwrap())
        .collect();
    assert_eq!(ascending, [3, 43, 57]);
    click_header(&client, "Requests").await;
    let descending: Vec<u64> = visible_column(&client, requests)
        .await
        .iter()
        .map(|value| value.parse().unwrap())
        .collect();
    assert_eq!(descending, [57, 43, 3]);
    let project = header_index(&client, "Project").await;
    click_header(&client, "Project").await;
    assert_eq!(
        visible_column(&client, project).await,
        [
            "/home/mira/src/feedkit",
            "/home/mira/src/feedkit",
            "/home/mira/src/tally"
        ]
    );

    // The filter box keeps the rows holding every word typed.
    let filter = client.find(Locator::Id("filter")).await.unwrap();
    filter.send_keys("feedkit").await.unwrap();
    wait_for(
        &client,
        "return document.getElementById('shown').textContent === '2 of 3 sessions';",
    )
    .await;
    assert_eq!(
        visible_column(&client, tool).await,
        ["Claude Code", "Claude Code"]
    );
    filter.clear().await.unwrap();
    filter.send_keys("codex tally").await.unwrap();
    wait_for(
        &client,
        "return document.getElementById('shown').textContent === '1 of 3 sessions';",
    )
    .await;
    assert_eq!(visible_column(&client, tool).await, ["Codex"]);
    filter.clear().await.unwrap();
    filter.send_keys("  ").await.unwrap();
    wait_for(
        &client,
        "return document.getElementById('shown').textContent === '3 of 3 sessions';",
    )
    .await;
    assert_eq!(severe_messages(&client).await, Vec::<String>::new());
    screenshot(&client, "index.png").await;

    // The Codex sample's page: its timeline draws the recorded series with a point per request
    // that recorded usage, and our prediction.
    client
        .find(Locator::XPath(
            "//table[@id='sessions']//tr[td[@data-v='Codex']]//a",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "return document.querySelector('figure.timeline svg') !== null;",
    )
    .await;
    let drawn = eval(
        &client,
        "const svg = document.querySelector('figure.timeline svg');\
         const box = svg.getBoundingClientRect();\
         return {\
           width: box.width,\
           recorded: svg.querySelectorAll('polyline[stroke=\"#1f77b4\"]').length,\
           predicted: svg.querySelectorAll('polyline[stroke=\"#ff7f0e\"]').length,\
           policy: svg.querySelectorAll('polyline.policy').length,\
           policyPoints: Array.from(svg.querySelectorAll('polyline.policy')).reduce((sum, line) => sum + line.points.numberOfItems, 0),\
           recordedPoints: svg.querySelectorAll('circle[fill=\"#1f77b4\"]').length,\
           measuredRows: Array.from(document.querySelectorAll('table.requests tbody tr:not(.body-row)')).filter(r => r.cells[2].textContent !== '-').length,\
           requestRows: document.querySelectorAll('table.requests tbody tr:not(.body-row)').length,\
         };",
    )
    .await;
    assert!(drawn["width"].as_f64().unwrap() > 400.0, "{drawn}");
    assert!(drawn["recorded"].as_u64().unwrap() >= 1, "{drawn}");
    assert!(drawn["predicted"].as_u64().unwrap() >= 1, "{drawn}");
    assert_eq!(drawn["requestRows"], 57, "{drawn}");
    // Both panels (the window and the zoom) draw every recorded point, and our policy's
    // context for each of those requests.
    assert_eq!(
        drawn["recordedPoints"].as_u64().unwrap(),
        2 * drawn["measuredRows"].as_u64().unwrap(),
        "{drawn}"
    );
    assert!(drawn["policy"].as_u64().unwrap() >= 2, "{drawn}");
    assert_eq!(drawn["policyPoints"], drawn["recordedPoints"], "{drawn}");

    // The legend has a band of its own: it overlaps no threshold label, and no two labels
    // overlap each other.
    let layout = eval(
        &client,
        "const svg = document.querySelector('figure.timeline svg');\
         const legend = svg.querySelector('g.legend').getBoundingClientRect();\
         const labels = Array.from(svg.querySelectorAll('text.threshold')).map(t => t.getBoundingClientRect());\
         const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;\
         let between = 0;\
         labels.forEach((a, i) => labels.slice(i + 1).forEach(b => { if (meet(a, b)) { between += 1; } }));\
         return {\
           labels: labels.length,\
           legendWidth: legend.width,\
           overLegend: labels.filter(b => meet(b, legend)).length,\
           between: between,\
           panels: svg.querySelectorAll('g.panel').length,\
         };",
    )
    .await;
    // The window, blocking, auto-compact and warning labels of the first panel; the sample's
    // peak is far below them, so the zoom panel draws none.
    assert_eq!(layout["labels"], 4, "{layout}");
    assert!(layout["legendWidth"].as_f64().unwrap() > 100.0, "{layout}");
    assert_eq!(layout["overLegend"], 0, "{layout}");
    assert_eq!(layout["between"], 0, "{layout}");
    assert_eq!(layout["panels"], 2, "{layout}");

    screenshot(&client, "session.png").await;

    // Beside the sample's recorded compaction, its survival: the figure is on screen once
    // scrolled to, and the fold, opened, lists as many lost probes as its summary counts.
    let survival = eval(
        &client,
        "const figure = document.querySelector('.compaction .survival .survival-figure');\
         if (figure === null) { return null; }\
         figure.scrollIntoView();\
         const box = figure.getBoundingClientRect();\
         const hit = document.elementFromPoint(box.left + 5, box.top + box.height / 2);\
         const fold = figure.parentElement.querySelector('details');\
         fold.querySelector('summary').click();\
         return {\
           text: figure.textContent,\
           percent: figure.parentElement.getAttribute('data-percent'),\
           onScreen: box.width > 0 && box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight,\
           shown: hit !== null && figure.contains(hit),\
           open: fold.open,\
           summary: fold.querySelector('summary').textContent,\
           lost: fold.querySelectorAll('ul.lost li').length,\
           lostShown: Array.from(fold.querySelectorAll('ul.lost li')).filter(li => li.getBoundingClientRect().height > 0).length,\
         };",
    )
    .await;
    assert!(survival.is_object(), "no survival figure on the page");
    let percent = survival["percent"].as_str().unwrap();
    assert!(
        percent
            .parse::<f64>()
            .is_ok_and(|value| (0.0..=100.0).contains(&value)),
        "{survival}"
    );
    assert!(
        survival["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Survival: {percent}% of ")),
        "{survival}"
    );
    assert_eq!(survival["onScreen"], true, "{survival}");
    assert_eq!(survival["shown"], true, "{survival}");
    assert_eq!(survival["open"], true, "{survival}");
    let lost = survival["lost"].as_u64().unwrap();
    assert!(lost > 0, "{survival}");
    assert_eq!(survival["lostShown"], lost, "{survival}");
    assert!(
        survival["summary"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Lost ({lost})")),
        "{survival}"
    );
    screenshot(&client, "session-survival.png").await;
    // Back to the top, where the first request's button is clicked next.
    eval(&client, "window.scrollTo(0, 0); return true;").await;

    // A request expanded loads its body from the file beside the page.
    let button = client
        .find(Locator::Css("button.body[data-request='1']"))
        .await
        .unwrap();
    button.click().await.unwrap();
    wait_for(
        &client,
        "const pre = document.getElementById('body-1'); return pre.textContent.startsWith('{') && !pre.closest('tr').hidden;",
    )
    .await;
    let body = eval(
        &client,
        "return JSON.parse(document.getElementById('body-1').textContent);",
    )
    .await;
    assert_eq!(body["model"], "gpt-5.1-codex");
    screenshot(&client, "session-body.png").await;
    assert_eq!(severe_messages(&client).await, Vec::<String>::new());

    decisions_page(&client, dir.path()).await;

    // The log does catch what a page reports: an error logged now is read back.
    eval(&client, "console.error('agentctx-probe'); return true;").await;
    let probe = severe_messages(&client).await;
    assert!(
        probe
            .iter()
            .any(|message| message.contains("agentctx-probe")),
        "{probe:?}"
    );
    client.close().await.unwrap();
    drop(driver);
}

/// The Claude Code sample judged against a 16,000-token window, where our compaction runs:
/// its page marks each decision of ours on the timeline, the mark's title (the tooltip) giving
/// the stage, the reason and the figures that the request's "Our tiers" cell shows.
async fn decisions_page(client: &Client, dir: &Path) {
    let out = dir.join("small-window");
    report(
        &out,
        dir,
        &[
            super::replay::CLAUDE_SAMPLE,
            "--context-window",
            "16000",
            "--bodies-mb",
            "0",
        ],
    )
    .assert()
    .success();
    let page = std::fs::read_dir(out.join("sessions"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "html"))
        .unwrap();
    let page = url::Url::from_file_path(page).unwrap();
    client.goto(page.as_str()).await.unwrap();
    wait_for(
        client,
        "return document.querySelector('figure.timeline svg g.decision') !== null;",
    )
    .await;
    let marks = eval(
        client,
        "const svg = document.querySelector('figure.timeline svg');\
         const marks = Array.from(svg.querySelectorAll('g.decision'));\
         const cells = Array.from(document.querySelectorAll('table.requests td.tiers span.tier'));\
         return {\
           titles: marks.map(g => g.querySelector('title').textContent),\
           drawn: marks.filter(g => { const box = g.getBoundingClientRect(); return box.width > 0 && box.height > 0; }).length,\
           cells: cells.map(span => span.textContent),\
           policy: svg.querySelectorAll('polyline.policy').length,\
         };",
    )
    .await;
    let titles: Vec<String> = serde_json::from_value(marks["titles"].clone()).unwrap();
    let cells: Vec<String> = serde_json::from_value(marks["cells"].clone()).unwrap();
    assert!(!titles.is_empty(), "{marks}");
    assert_eq!(
        marks["drawn"].as_u64().unwrap(),
        titles.len() as u64,
        "{marks}"
    );
    assert!(marks["policy"].as_u64().unwrap() >= 1, "{marks}");
    let compaction = titles
        .iter()
        .find(|title| title.contains(": full compaction, "))
        .unwrap_or_else(|| panic!("{marks}"));
    assert!(
        compaction.contains(" · mid-turn, after tool outputs: ")
            && compaction.contains(" tokens against the window's trigger of 10,500 · "),
        "{compaction}"
    );
    // Each panel marks every decision once; the table lists each once, with the same text.
    let mut marked: Vec<&str> = titles
        .iter()
        .map(|title| title.split_once(": ").unwrap().1)
        .collect();
    marked.sort_unstable();
    marked.dedup();
    let mut listed: Vec<&str> = cells.iter().map(String::as_str).collect();
    listed.sort_unstable();
    assert_eq!(listed, marked, "{marks}");
    screenshot(client, "session-decisions.png").await;
    assert_eq!(severe_messages(client).await, Vec::<String>::new());
}
