//! `sessions/<name>.html`: one session. Its figures beside ours, the token timeline (the replay's
//! SVG, inline), the recorded compactions with their summaries and what they kept, and per turn
//! the user message, the tool calls, the reminders the engine fired and every request with its
//! recorded and predicted usage, our tiers, and its body when one was written.

use std::fmt::Write as _;

use agentctx_engine::replay::ReplayTurn;
use agentctx_engine::replay::RequestUsage;
use agentctx_engine::replay::SessionReplay;
use agentctx_engine::replay::TurnReminder;
use agentctx_engine::survival::CompactionSource;

use super::body_files::WrittenBodies;
use super::body_files::body_file_name;
use super::html;
use super::html::escape;
use super::our_policy::PolicyRequest;
use super::our_policy::our_requests;
use super::session_row::SessionRow;
use super::survival_fold;
use crate::replay_command::svg_timeline;
use crate::replay_command::svg_timeline::marks::marks;

/// Characters of a reminder's text a page shows.
const REMINDER_TEXT_CHARS: usize = 4_000;

/// The page of `replay`, whose index row is `row`.
pub(crate) fn render(replay: &SessionReplay, row: &SessionRow, bodies: &WrittenBodies) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let id = replay.session_id.as_deref().unwrap_or("-");
    html::page_start(&mut out, &format!("{} session {id}", row.tool), "../");
    out.push_str(r#"<header><nav><a href="../index.html">← all sessions</a></nav>"#);
    let _ = write!(
        out,
        "<h1>{} session <code>{}</code></h1>",
        escape(row.tool),
        escape(id)
    );
    facts(&mut out, replay, row);
    cards(&mut out, row);
    out.push_str("</header>\n<main>\n");
    let policy = our_requests(&replay.requests);
    out.push_str(r#"<section><h2>Token timeline</h2><figure class="timeline">"#);
    out.push_str(&svg_timeline::render_with_policy(replay, &policy));
    out.push_str("</figure></section>\n");

    let page = Requests {
        policy: &policy,
        bodies,
        folder: &row.page,
    };
    let preamble: Vec<&RequestUsage> = replay
        .requests
        .iter()
        .filter(|request| {
            replay
                .turns
                .first()
                .is_none_or(|turn| request.line < turn.line)
        })
        .collect();
    out.push_str("<section><h2>Turns</h2>\n");
    if !preamble.is_empty() {
        out.push_str(r#"<section class="turn"><h3>Before the first turn</h3>"#);
        page.table(&mut out, preamble.into_iter());
        out.push_str("</section>\n");
    }
    for turn in &replay.turns {
        turn_section(&mut out, replay, turn, &page);
    }
    if replay.turns.is_empty() {
        out.push_str("<p>No user turn was found in this session.</p>");
    }
    out.push_str("</section>\n");
    if let Some(reason) = &bodies.missing_reason {
        let _ = write!(
            out,
            r#"<p class="note">{}. <code>agentctx replay --requests DIR {}</code> writes every body.</p>"#,
            escape(reason),
            escape(&row.file)
        );
    }
    out.push_str("</main>\n");
    html::page_end(&mut out);
    out
}

fn facts(out: &mut String, replay: &SessionReplay, row: &SessionRow) {
    let thresholds = replay.thresholds;
    out.push_str(r#"<dl class="facts">"#);
    let mut fact = |name: &str, value: &str| {
        let _ = write!(
            out,
            "<div><dt>{}</dt><dd>{}</dd></div>",
            escape(name),
            escape(value)
        );
    };
    fact("Started", &row.started_at);
    fact("Project", &row.project);
    if row.models.len() > 1 {
        fact("Models", &row.models.join(", "));
    } else {
        fact("Model", &row.model);
    }
    fact("File", &row.file);
    fact(
        "Window",
        &format!(
            "{} tokens · warning {} · auto-compact {} · blocking {}",
            html::grouped(thresholds.window),
            html::grouped(thresholds.warning),
            html::grouped(thresholds.auto_compact),
            html::grouped(thresholds.blocking)
        ),
    );
    if let Some(counts) = &replay.reminder_counts {
        let fired: Vec<String> = counts
            .iter()
            .map(|(kind, count)| format!("{kind} ×{count}"))
            .collect();
        fact(
            "Reminders",
            &if fired.is_empty() {
                "none fired".to_string()
            } else {
                fired.join(", ")
            },
        );
    }
    out.push_str("</dl>");
}

fn cards(out: &mut String, row: &SessionRow) {
    let _ = write!(
        out,
        r#"<dl class="cards"><div><dt>Input sent</dt><dd title="{}">{}</dd></div><div><dt>Under our policy</dt><dd title="{}">{} <small>{}</small></dd></div><div><dt>Cost</dt><dd>{}</dd></div><div><dt>Under our policy</dt><dd>{}</dd></div><div><dt>Turns · requests · tool calls</dt><dd>{} · {} · {}</dd></div><div><dt>Peak context</dt><dd title="{} tokens">{}</dd></div><div><dt>Compactions: theirs · our auto · our micro</dt><dd>{} · {} · {}</dd></div></dl>"#,
        html::grouped(row.recorded.input),
        html::short(row.recorded.input),
        html::grouped(row.ours.input),
        html::short(row.ours.input),
        html::change(row.ours.input, row.recorded.input),
        super::usage_cells::cost_text(row.recorded_cost, row.cost_lower_bound),
        super::usage_cells::cost_text(row.our_cost, row.cost_lower_bound),
        row.turns,
        row.requests,
        row.tool_calls,
        html::grouped(row.peak_context),
        html::short(row.peak_context),
        row.their_compactions,
        row.our_compactions,
        row.our_micro_compactions,
    );
}

fn turn_section(out: &mut String, replay: &SessionReplay, turn: &ReplayTurn, page: &Requests<'_>) {
    let _ = write!(
        out,
        r#"<section class="turn" id="turn-{0}"><h3>Turn {0} <small>line {1}</small></h3><blockquote class="user">{2}</blockquote>"#,
        turn.turn,
        turn.line,
        escape(&turn.user_message)
    );
    if !turn.tools.is_empty() {
        out.push_str(r#"<p class="tools">Tool calls: "#);
        let tools: Vec<String> = turn
            .tools
            .iter()
            .map(|(name, count)| format!("<code>{}</code> ×{count}", escape(name)))
            .collect();
        out.push_str(&tools.join(", "));
        out.push_str("</p>");
    }
    if let Some(reminders) = turn.reminders.as_ref().filter(|list| !list.is_empty()) {
        reminder_list(out, reminders);
    }
    for (index, compaction) in replay
        .recorded_compactions
        .iter()
        .enumerate()
        .filter(|(_, compaction)| compaction.turn == Some(turn.turn))
    {
        let _ = write!(
            out,
            r#"<div class="compaction"><h4>Recorded compaction after request {}</h4><details open><summary>Summary</summary><pre>{}</pre></details>"#,
            compaction.after_request,
            escape(&compaction.summary)
        );
        match compaction.replacement_items {
            Some(items) => {
                let _ = write!(
                    out,
                    "<p>The history after it: {items} items; restored beside the summary:</p><ul>"
                );
                for kept in &compaction.kept {
                    let _ = write!(out, "<li>{}</li>", escape(kept));
                }
                out.push_str("</ul>");
            }
            None => out.push_str("<p>No replacement history recorded: the summary and the user messages were kept.</p>"),
        }
        if let Some(survival) = survival_fold::find(
            &replay.compaction_survival,
            CompactionSource::Recorded,
            index + 1,
        ) {
            survival_fold::write(out, survival);
        }
        out.push_str("</div>");
    }
    // Our policy's compactions in the turn, with what they kept.
    for survival in replay.compaction_survival.iter().filter(|survival| {
        survival.source == CompactionSource::Ours && survival.turn == Some(turn.turn)
    }) {
        let _ = write!(
            out,
            r#"<div class="compaction ours"><h4>Our compaction after request {}</h4>"#,
            survival.after_request
        );
        survival_fold::write(out, survival);
        out.push_str("</div>");
    }
    page.table(out, turn.request_usage.iter());
    out.push_str("</section>\n");
}

fn reminder_list(out: &mut String, reminders: &[TurnReminder]) {
    out.push_str(r#"<div class="reminders"><h4>Reminders fired</h4>"#);
    for fired in reminders {
        let text: String = fired
            .reminder
            .text
            .chars()
            .take(REMINDER_TEXT_CHARS)
            .collect();
        let _ = write!(
            out,
            "<details><summary><code>{}</code> before request {} of the turn</summary><pre>{}</pre></details>",
            escape(&fired.reminder.label()),
            fired.request,
            escape(&text)
        );
    }
    out.push_str("</div>");
}

/// The request tables of a page.
struct Requests<'a> {
    policy: &'a [Option<PolicyRequest>],
    bodies: &'a WrittenBodies,
    folder: &'a str,
}

impl Requests<'_> {
    fn table<'r>(&self, out: &mut String, requests: impl Iterator<Item = &'r RequestUsage>) {
        out.push_str(r#"<table class="requests"><thead><tr><th>Request</th><th>Line</th><th title="input tokens the request recorded">Recorded</th><th title="the engine's usage before the request">Predicted</th><th title="the input under our policy">Ours</th><th title="cache reads, recorded / ours">Cached</th><th>Output</th><th>Level</th><th>Our tiers</th><th>Body</th></tr></thead><tbody>"#);
        for request in requests {
            self.row(out, request);
        }
        out.push_str("</tbody></table>");
    }

    fn row(&self, out: &mut String, request: &RequestUsage) {
        let number = request.request;
        let policy = number
            .checked_sub(1)
            .and_then(|index| self.policy.get(index))
            .copied()
            .flatten();
        let class = if request.after_compaction {
            r#" class="after-compaction""#
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr{class}><td>{number}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
            request.line,
            request
                .recorded_tokens
                .map_or_else(|| "-".to_string(), html::grouped),
            html::grouped(request.predicted_tokens)
        );
        match policy {
            Some(policy) => {
                let _ = write!(
                    out,
                    r#"<td class="num">{}</td><td class="num">{} / {}</td><td class="num">{}</td>"#,
                    html::grouped(policy.ours.input),
                    html::grouped(policy.recorded.cached_input),
                    html::grouped(policy.ours.cached_input),
                    super::usage_cells::request_output(
                        policy.recorded.output,
                        request.recorded_billing.as_ref()
                    )
                );
            }
            None => out
                .push_str(r#"<td class="num">-</td><td class="num">-</td><td class="num">-</td>"#),
        }
        let _ = write!(out, "<td>{}</td><td class=\"tiers\">", level_name(request));
        // Each decision of ours, as the timeline's mark titles it.
        for mark in marks(request) {
            let _ = write!(
                out,
                r#"<span class="tier {}">{}</span> "#,
                mark.kind.class(),
                escape(&mark.text)
            );
        }
        out.push_str("</td><td>");
        if number <= self.bodies.through {
            let _ = write!(
                out,
                r#"<button type="button" class="body" data-request="{number}" data-src="{}/{}" aria-expanded="false">show</button>"#,
                escape(self.folder),
                body_file_name(number)
            );
        } else {
            out.push('-');
        }
        out.push_str("</td></tr>");
        if number <= self.bodies.through {
            let _ = write!(
                out,
                r#"<tr class="body-row" hidden><td colspan="10"><pre class="body" id="body-{number}"></pre></td></tr>"#
            );
        }
    }
}

fn level_name(request: &RequestUsage) -> &'static str {
    use agentctx_compact::ThresholdLevel;
    match request.level {
        ThresholdLevel::Normal => "normal",
        ThresholdLevel::Warning => "warning",
        ThresholdLevel::Error => "error",
        ThresholdLevel::AutoCompact => "auto-compact",
        ThresholdLevel::Blocking => "blocking",
    }
}
