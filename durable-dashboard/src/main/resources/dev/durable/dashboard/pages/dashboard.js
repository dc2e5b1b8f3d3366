// The dashboard's pages (docs/DESIGN.md, "Dashboard"): one page per hash route, drawn from the JSON under ./api.
// Every value is put in the page as text (never as HTML): errors and keys come from the application's data.
"use strict";

const api = "api";
let session = null;
let refreshTimer = null;
// Set by a page that holds a form being edited (the rerun's): it is not drawn again until the user moves on.
let holdStill = false;

function h(tag, attributes, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
        if (value === null || value === undefined || value === false) continue;
        if (name.startsWith("on")) element.addEventListener(name.substring(2), value);
        else element.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children.flat()) {
        if (child === null || child === undefined) continue;
        element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return element;
}

async function read(path) {
    const response = await fetch(api + path, {headers: {"Accept": "application/json"}});
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || response.statusText);
    return body;
}

async function write(path, body) {
    const headers = {"Content-Type": "application/json", "Accept": "application/json"};
    headers[session.writeHeader] = "1";
    if (session.csrf) headers[session.csrf.header] = session.csrf.token;
    const response = await fetch(api + path, {method: "POST", headers, body: JSON.stringify(body || {})});
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
    return answer;
}

function notice(kind, text) {
    const box = document.getElementById("notice");
    box.replaceChildren(h("div", {class: kind, id: "notice-" + kind}, text));
}

function age(millis) {
    if (millis === null || millis === undefined) return "–";
    if (millis < 1000) return millis + " ms";
    const seconds = Math.round(millis / 1000);
    if (seconds < 120) return seconds + " s";
    const minutes = Math.round(seconds / 60);
    return minutes < 120 ? minutes + " min" : Math.round(minutes / 60) + " h";
}

function count(value, attributes) {
    return h("td", Object.assign({class: value ? "n" : "n zero"}, attributes), value);
}

function table(headings, rows, attributes) {
    return h("table", attributes, h("thead", {}, h("tr", {}, headings.map(name => h("th", {}, name)))),
        h("tbody", {}, rows));
}

function instanceLink(id) {
    return h("a", {href: "#/instance/" + id, "data-instance": id}, "#" + id);
}

function writeButton(label, action, attributes) {
    const button = h("button", Object.assign({type: "button"}, attributes), label);
    if (!session.canWrite) {
        button.disabled = true;
        button.title = session.writeRefusal;
    }
    button.addEventListener("click", async () => {
        try {
            const answer = await action();
            notice("info", label + ": " + (answer.outcome || (answer.changed + " of " + answer.selected + " instances")));
            route();
        } catch (error) {
            notice("error", label + " refused: " + error.message);
        }
    });
    return button;
}

// ---- pages ----

async function overview() {
    const [data, cluster] = await Promise.all([read("/overview"), read("/cluster")]);
    const reasons = data.queues.length ? Object.keys(data.queues[0].waiting) : [];
    // The ended statuses (done, cancelled) come uncounted (null): counting them would read the whole table on every
    // refresh (docs/PERFORMANCE.md, "The dashboard on 1,000,000 instances"). The search finds them.
    const statuses = session.statuses.filter(status => data.queues.some(queue => queue.statuses[status] != null));
    const uncounted = session.statuses.filter(status => !statuses.includes(status));
    return [
        h("h2", {}, "Node"),
        h("p", {id: "node"}, data.node.id + " is " + data.node.state + ", holding " + data.node.claims + " claims",
            data.node.databaseError ? h("span", {class: "failed"}, " — " + data.node.databaseError) : null,
            data.node.heldByDeployCheck ? h("span", {class: "failed"}, " — held by its deploy check") : null),
        nodes(cluster),
        throughput(cluster),
        targets(cluster),
        h("h2", {}, "Queues"),
        table(["queue", ...statuses, ...reasons.map(reason => "waiting: " + reason), "oldest runnable", "expired leases",
                "this node"],
            data.queues.map(queue => h("tr", {"data-queue": queue.name}, h("td", {}, queue.name),
                statuses.map(status => count(queue.statuses[status], {"data-status": status})),
                reasons.map(reason => count(queue.waiting[reason], {"data-reason": reason})),
                h("td", {class: "n", "data-oldest": ""}, age(queue.oldestRunnableMillis)),
                count(queue.expiredLeases),
                h("td", {}, queue.concurrency === null ? "not worked here"
                    : queue.claims + " of " + queue.concurrency + (queue.paused ? ", paused" : "")))),
            {id: "queues"}),
        uncounted.length === 0 ? null : h("p", {class: "note"}, "Ended instances (" + uncounted.join(", ")
            + ") are not counted here: ",
            h("a", {href: "#/instances?status=" + uncounted.join(","), id: "search-ended"}, "search them"), "."),
        h("h2", {}, "Machines"),
        table(["machine", "version", "queue", "steps", ...reasons],
            data.machines.map(machine => h("tr", {"data-machine": machine.name},
                h("td", {}, h("a", {href: "#/machine/" + encodeURIComponent(machine.name)}, machine.name)),
                h("td", {class: "n"}, machine.version), h("td", {}, machine.queue), h("td", {}, machine.steps.join(", ")),
                reasons.map(reason => count(machine.waiting[reason], {"data-reason": reason})))),
            {id: "machines"}),
        h("h2", {}, "Schedules"),
        data.schedules.length === 0 ? h("p", {}, "No recurring schedules.") :
            table(["schedule", "machine", "cron", "zone", "next tick", "last tick", "paused", ""],
                data.schedules.map(schedule => h("tr", {"data-schedule": schedule.name}, h("td", {}, schedule.name),
                    h("td", {}, schedule.machine),
                    h("td", {}, schedule.cron), h("td", {}, schedule.zone), h("td", {}, schedule.nextFireAt),
                    h("td", {}, schedule.lastFiredAt || "–"), h("td", {"data-paused": ""}, schedule.paused ? "paused" : ""),
                    h("td", {}, schedule.paused
                        ? writeButton("Resume", () => write("/schedules/" + encodeURIComponent(schedule.name)
                            + "/resume"), {"data-resume": schedule.name})
                        : writeButton("Pause", () => write("/schedules/" + encodeURIComponent(schedule.name)
                            + "/pause"), {"data-pause": schedule.name}))))),
        data.stranded.length === 0 ? null : [h("h2", {class: "failed"}, "Stranded (no live node runs them)"),
            table(["machine", "version", "waiting", "since"], data.stranded.map(s => h("tr", {},
                h("td", {}, s.machine), h("td", {}, s.version), h("td", {}, s.waiting), h("td", {}, s.since))))]
    ];
}

// Every node the database knows: this one as it knows itself, the others live or silent by their heartbeat.
function nodes(cluster) {
    return [h("h2", {}, "Nodes"),
        table(["node", "state", "started", "last heartbeat", "machines"], cluster.nodes.map(node => h("tr",
                {"data-node": node.id, class: node.state === "silent" ? "failed" : ""},
            h("td", {}, node.id + (node.self ? " (this node)" : "")), h("td", {"data-state": ""}, node.state),
            h("td", {}, node.startedAt), h("td", {class: "n"}, age(node.silenceMillis) + " ago"),
            h("td", {}, node.machines.join(", ")))), {id: "nodes"})];
}

// Transitions per minute of every node together, as bars over the window; the current minute, not over yet, last.
function throughput(cluster) {
    if (!cluster.history) {
        return [h("h2", {}, "Throughput"), h("p", {id: "throughput"}, "History is off (durable.history.enabled):"
            + " there are no transitions to count.")];
    }
    const minutes = cluster.throughput;
    const total = minutes.reduce((sum, minute) => sum + minute.transitions, 0);
    const highest = Math.max(1, ...minutes.map(minute => minute.transitions));
    const done = minutes.length > 1 ? minutes[minutes.length - 2].transitions : null;
    return [h("h2", {}, "Throughput"),
        h("div", {id: "throughput", class: "bars", "data-total": total}, minutes.map(minute => h("span",
            {class: "bar", title: minute.minute + ": " + minute.transitions + " transitions",
                style: "height: " + Math.max(1, Math.round(48 * minute.transitions / highest)) + "px"}))),
        h("p", {class: "checked"}, total + " transitions in the last " + minutes.length + " minutes",
            done === null ? "" : ", " + done + " in the last whole minute", " (all nodes, from the history).")];
}

// The targets (docs/DESIGN.md, "Targets") as the node's last check found them, each with the search of the instances
// past it: the first thing to read when someone is paged.
function targets(cluster) {
    if (cluster.targets.length === 0) {
        return [h("h2", {}, "Targets"), h("p", {id: "no-targets"}, "No targets (durable.queues.<queue>.targets,"
            + " durable.machines.<machine>.targets).")];
    }
    const checked = cluster.targetsCheckedAt;
    return [h("h2", {}, "Targets"),
        table(["target", "limit", "past it", "longest wait", ""], cluster.targets.map(target => h("tr",
                {"data-target": target.description, class: target.breaching ? "failed" : ""},
            h("td", {}, target.description), h("td", {class: "n"}, age(target.limitMillis)),
            target.breaching === null ? h("td", {class: "n zero"}, "not checked yet") : count(target.breaching,
                {"data-breaching": ""}),
            h("td", {class: "n"}, age(target.longestWaitMillis)),
            h("td", {}, target.breaching ? h("a", {href: "#/instances?" + target.search, "data-breaching-search": ""},
                "the instances past it") : ""))), {id: "targets"}),
        checked ? h("p", {class: "checked"}, "As checked at " + checked + ".") : null];
}

const FILTERS = ["machine", "status", "step", "queue", "uniqueKey", "correlationKey", "errorContains",
    "waitingLongerThan", "order"];

function instanceRows(instances, withRetry) {
    return instances.map(instance => h("tr", {"data-row": instance.id},
        h("td", {}, instanceLink(instance.id)), h("td", {}, instance.machine + " v" + instance.version),
        h("td", {}, instance.step), h("td", {class: instance.status}, instance.status), h("td", {class: "n"}, instance.attempt),
        h("td", {}, instance.uniqueKey || ""), h("td", {}, instance.updatedAt),
        h("td", {}, h("pre", {}, instance.lastError || "")),
        withRetry ? h("td", {}, writeButton("Retry", () => write("/instances/" + instance.id + "/retry"),
            {"data-retry": instance.id})) : null));
}

async function instances(parameters) {
    const query = new URLSearchParams(parameters);
    const data = await read("/instances?" + query);
    const form = h("form", {class: "filters", id: "search"},
        FILTERS.map(name => h("label", {}, name, name === "status"
            ? h("select", {name}, h("option", {value: ""}, "any"),
                session.statuses.map(status => h("option", {value: status, selected: query.get(name) === status}, status)))
            : name === "order" ? h("select", {name}, h("option", {value: ""}, "newest first"),
                h("option", {value: "oldest_first", selected: query.get(name) === "oldest_first"}, "oldest first"))
            : h("input", {name, value: query.get(name) || "",
                placeholder: name === "waitingLongerThan" ? "e.g. 30s, 24h" : null}))),
        h("button", {type: "submit"}, "Search"));
    form.addEventListener("submit", event => {
        event.preventDefault();
        const chosen = new URLSearchParams();
        for (const [name, value] of new FormData(form)) if (value) chosen.set(name, value);
        location.hash = "#/instances?" + chosen;
    });
    const next = new URLSearchParams(query);
    if (data.nextAfterId !== null) next.set("afterId", data.nextAfterId);
    return [form,
        table(["id", "machine", "step", "status", "attempt", "unique key", "updated", "last error"],
            instanceRows(data.instances, false), {id: "results"}),
        data.instances.length === 0 ? h("p", {id: "no-results"}, "No instance matches.") : null,
        data.nextAfterId === null ? null : h("a", {href: "#/instances?" + next, id: "next-page"}, "Next page")];
}

async function failed() {
    const query = new URLSearchParams({status: "failed,suspended", order: "oldest_first"});
    const data = await read("/instances?" + query);
    return [h("h2", {}, "Failed and suspended instances"),
        h("p", {}, writeButton("Retry all shown", () => write("/bulk-retry",
            {status: "failed,suspended", order: "oldest_first"}), {id: "bulk-retry"})),
        table(["id", "machine", "step", "status", "attempt", "unique key", "updated", "last error", ""],
            instanceRows(data.instances, true), {id: "failed"}),
        data.instances.length === 0 ? h("p", {id: "none-failed"}, "None failed or suspended.") : null];
}

async function instance(id) {
    const data = await read("/instances/" + id);
    const ended = ["done", "failed", "cancelled"].includes(data.status);
    holdStill = ended && session.canWrite;
    const fields = ["machine", "version", "queue", "step", "status", "attempt", "awaits", "eligibleAt", "leaseOwner",
        "uniqueKey", "correlationKey", "partitionKey", "parentId", "createdAt", "updatedAt"];
    return [h("h2", {}, "Instance #" + data.id),
        table(["field", "value"], fields.map(name => h("tr", {}, h("th", {}, name),
            h("td", {"data-field": name}, name === "parentId" && data.parentId ? instanceLink(data.parentId)
                : data[name] === null ? "–" : data[name]))), {id: "instance"}),
        h("p", {},
            ["failed", "suspended"].includes(data.status)
                ? writeButton("Retry", () => write("/instances/" + data.id + "/retry"), {id: "retry"}) : null, " ",
            ended ? null : writeButton("Cancel", () => write("/instances/" + data.id + "/cancel",
                {reason: prompt("Why cancel it?") || ""}), {id: "cancel"})),
        data.lastError ? [h("h2", {}, "Last error"), h("pre", {id: "last-error", class: "failed"}, data.lastError)] : null,
        ended ? rerunForm(data) : null,
        h("h2", {}, "State"),
        session.showsValues ? h("pre", {id: "state"}, data.state || "–")
            : h("p", {}, "Hidden (management.endpoint.durable.show-values)."),
        h("h2", {}, "History"),
        h("ol", {class: "timeline", id: "history"}, data.history.map(entry => h("li", {"data-event": entry.event},
            h("strong", {}, entry.event), " ", entry.step, entry.nextStep ? " → " + entry.nextStep : "",
            " · ", entry.status, " · attempt " + entry.attempt, " · " + entry.at,
            entry.durationMillis === null ? "" : " · " + entry.durationMillis + " ms",
            entry.node ? " · " + entry.node : "",
            entry.error ? h("pre", {class: "failed"}, entry.error) : null,
            entry.upcastPatch ? patchView(entry.upcastPatch, "upcast") : null,
            entry.patch ? patchView(entry.patch, "patch") : null))),
        h("h2", {}, "Children"),
        data.children.length === 0 ? h("p", {}, "None.") : table(["id", "machine", "step", "status", "attempt",
            "unique key", "updated", "last error"], instanceRows(data.children, false), {id: "children"})];
}

// What a transition changed of the state (docs/DESIGN.md, "History"): one line per RFC 6902 operation, its value as
// JSON, or as the server masked it where the state is hidden (show-values); a patch cut at its size limit ends with
// how much of it was not kept, so nobody reads half a change as the whole.
function patchView(patch, kind) {
    return h("pre", {class: "patch", "data-patch": kind}, kind === "upcast" ? "upcast:\n" : null,
        patch.map(operation => operation.op === "cut"
            ? h("span", {class: "cut"}, "… cut at the size limit: the whole patch had " + operation.operations
                + " operations, " + operation.bytes + " bytes\n")
            : [operation.op, " ", operation.path, operation.from === undefined ? "" : " from " + operation.from,
                operation.value === undefined ? "" : " " + (session.showsValues ? JSON.stringify(operation.value)
                    : operation.value), "\n"]).flat());
}

// An operator's repair (docs/DESIGN.md, "Operator repair"): run the ended instance again from a chosen step, with the
// state as edited here. The state is sent only when the operator changed it: the text shown is the stored state as
// JSON, and sending it back unchanged would store a re-serialized copy as if it were an edit.
function rerunForm(data) {
    const step = h("select", {id: "rerun-step"}, data.steps.map(name => h("option", {value: name,
        selected: name === data.step}, name)));
    const state = h("textarea", {id: "rerun-state", rows: 4, cols: 80,
        placeholder: "the stored state; or write the edited state as JSON"}, data.state || "");
    return [h("h2", {}, "Rerun"),
        h("p", {}, "Run it again from ", step, " with the state:"), state,
        h("p", {}, writeButton("Rerun", () => write("/instances/" + data.id + "/rerun",
            state.value !== (data.state || "") ? {step: step.value, state: state.value} : {step: step.value}),
            {id: "rerun"}))];
}

async function deployCheck() {
    const data = await read("/deploy-check");
    return [h("h2", {id: "verdict", class: data.passed ? "done" : "failed"},
            data.passed ? "This node's code can run everything in flight" : "This node's code cannot run everything in flight"),
        table(["machine", "version", "step", "status", "instances", "verdict", "reason", "what to do"],
            data.findings.map(finding => h("tr", {class: finding.problem ? "failed" : ""},
                h("td", {}, finding.machine), h("td", {}, finding.version), h("td", {}, finding.step),
                h("td", {}, finding.status), h("td", {class: "n"}, finding.count), h("td", {}, finding.verdict),
                h("td", {}, finding.reason), h("td", {}, finding.advice || ""))), {id: "findings"}),
        data.machinesNotChecked.length ? h("p", {}, "Not checked (not registered here): " + data.machinesNotChecked.join(", ")) : null];
}

// The machine's live diagram: drawn once, then its labels updated in place at every refresh, laid out again only
// when a step or transition appears (docs/DESIGN.md, "Dashboard").
let diagram = null;

function nodeLabel(node) {
    if (node.end) return node.id;
    return node.id + "\n" + node.unfinished + " now" + (node.failed ? " · " + node.failed + " failed" : "");
}

function edgeLabel(edge) {
    return (edge.event ? edge.event + " " : "") + edge.count;
}

async function machine(name) {
    const minutes = new URLSearchParams(location.hash.split("?")[1] || "").get("minutes") || "60";
    const data = await read("/machines/" + encodeURIComponent(name) + "?minutes=" + minutes);
    const elements = [
        ...data.nodes.map(node => ({group: "nodes", data: {id: node.id, label: nodeLabel(node), now: node.unfinished,
            end: node.end ? "yes" : "no", initial: node.initial ? "yes" : "no"}})),
        ...data.edges.map(edge => ({group: "edges", data: {id: edge.id, source: edge.from, target: edge.to,
            label: edgeLabel(edge), count: edge.count}}))];
    const ids = elements.map(element => element.data.id).sort().join("|");
    const current = document.getElementById("diagram");
    if (diagram && current && diagram.name === name && diagram.minutes === minutes && diagram.ids === ids) {
        for (const element of elements) diagram.cy.getElementById(element.data.id).data(element.data);
        diagram.data = data;
        publishDiagram(data);
        return null;   // the page stays as it is
    }
    const container = h("div", {id: "diagram"});
    const page = [h("h2", {}, "Machine " + name + " (versions " + data.versions.join(", ") + ")"),
        h("p", {}, "Transitions over the last ",
            h("select", {id: "window", onchange: event => location.hash = "#/machine/" + encodeURIComponent(name)
                    + "?minutes=" + event.target.value},
                [["5", "5 minutes"], ["60", "hour"], ["1440", "day"], ["10080", "week"]].map(([value, label]) =>
                    h("option", {value, selected: value === minutes}, label))),
            "; each step shows its unfinished instances now. ",
            h("a", {href: "#/instances?machine=" + encodeURIComponent(name)}, "Its instances")),
        container];
    document.getElementById("page").replaceChildren(...page);
    const cy = cytoscape({
        container, elements, autoungrabify: false, wheelSensitivity: 0.2,
        style: [
            {selector: "node", style: {"label": "data(label)", "text-wrap": "wrap", "text-valign": "center",
                "shape": "round-rectangle", "width": 150, "height": 48, "background-color": "#dbe4f3",
                "border-width": 1, "border-color": "#5b6b86", "font-size": 12}},
            {selector: "node[initial = 'yes']", style: {"border-width": 3}},
            {selector: "node[now > 0]", style: {"background-color": "#ffd98e"}},
            {selector: "node[end = 'yes']", style: {"shape": "ellipse", "width": 90, "background-color": "#eef0f4"}},
            {selector: "edge", style: {"label": "data(label)", "curve-style": "bezier", "target-arrow-shape": "triangle",
                "loop-direction": "90deg", "loop-sweep": "-60deg",
                "width": 2, "line-color": "#8a94a6", "target-arrow-color": "#8a94a6", "font-size": 11,
                "text-background-color": "#fff", "text-background-opacity": 1}},
        ],
        layout: {name: "breadthfirst", directed: true, roots: "node[initial = 'yes']", spacingFactor: 1.1,
            padding: 20},
    });
    diagram = {cy, name, minutes, ids, data};
    publishDiagram(data);
    return null;
}

// What the diagram shows, for people who read rather than look (and for the browser tests): the same numbers.
function publishDiagram(data) {
    document.getElementById("diagram").dataset.nodes = JSON.stringify(Object.fromEntries(
        data.nodes.filter(node => !node.end).map(node => [node.id, node.unfinished])));
    document.getElementById("diagram").dataset.edges = JSON.stringify(Object.fromEntries(
        data.edges.map(edge => [edge.id, edge.count])));
}

// ---- routing ----

const pages = [
    [/^#\/?$/, () => overview(), "overview", true],
    [/^#\/instances\??(.*)$/, match => instances(match[1]), "instances", false],
    [/^#\/failed$/, () => failed(), "failed", true],
    [/^#\/instance\/(\d+)$/, match => instance(match[1]), "instances", true],
    [/^#\/deploy-check$/, () => deployCheck(), "deploy-check", false],
    [/^#\/machine\/([^?]+)/, match => machine(decodeURIComponent(match[1])), "machine", true],
];

async function route(keepNotice) {
    clearTimeout(refreshTimer);
    holdStill = false;
    const hash = location.hash || "#/";
    const found = pages.find(([pattern]) => pattern.test(hash));
    if (!found) {
        notice("error", "No page " + hash);
        return;
    }
    const [pattern, draw, name, live] = found;
    for (const link of document.querySelectorAll("nav a")) link.classList.toggle("current", link.dataset.page === name);
    try {
        const content = await draw(hash.match(pattern));
        if (name !== "machine") diagram = null;
        if (content !== null) document.getElementById("page").replaceChildren(...[content].flat(3).filter(Boolean));
        document.body.dataset.loaded = hash;
    } catch (error) {
        notice("error", error.message);
    }
    if (live && !holdStill) refreshTimer = setTimeout(() => route(true), session.refreshMillis);
}

async function start() {
    session = await read("/session");
    document.getElementById("session").textContent = (session.user || "anonymous")
        + (session.readOnly ? " · read-only" : session.canWrite ? " · may retry, rerun and cancel" : " · may not write");
    window.addEventListener("hashchange", () => {
        document.getElementById("notice").replaceChildren();
        route();
    });
    route();
}

start();
