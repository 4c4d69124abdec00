// Follows /stats/stream and shows its numbers and their recent history.
"use strict";

// Every block the load generator writes it reads back, so the two rates are often the same: the write line is wide
// and the read line thin and dashed on top of it, so both stay visible.
const rates = new LineChart(document.getElementById("rates"),
  [{ label: "write MB/s (wide)", colour: "#1565c0", width: 5 },
    { label: "read MB/s (dashed)", colour: "#e65100", width: 2, dash: [8, 5] }], 120);
const flow = new LineChart(document.getElementById("flow"),
  [{ label: "in flight", colour: "#ef6c00" }, { label: "credits", colour: "#6a1b9a" }], 120);
let previous = null;

function show(id, text) {
  document.getElementById(id).textContent = text;
}

const source = new EventSource("stats/stream");
source.addEventListener("stats", event => {
  const s = JSON.parse(event.data);
  const status = document.getElementById("status");
  status.textContent = s.up ? "up" : "down";
  status.className = "value " + (s.up ? "up" : "down");
  show("blocksStored", s.blocksStored.toFixed(0));
  show("blocksRead", s.blocksRead.toFixed(0));
  show("inflight", s.inflight.toFixed(0));
  show("credits", String(s.credits));
  show("pending", String(s.pending));
  if (previous !== null && s.at > previous.at) {
    const seconds = (s.at - previous.at) / 1000;
    const write = (s.bytesStored - previous.bytesStored) / seconds / 1e6;
    const read = (s.bytesRead - previous.bytesRead) / seconds / 1e6;
    show("writeRate", write.toFixed(1));
    show("readRate", read.toFixed(1));
    rates.push([write, read]);
  }
  flow.push([s.inflight, s.credits]);
  previous = s;
  document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
});
