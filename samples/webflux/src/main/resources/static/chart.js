// A small line chart on a canvas: a rolling window of series, each with a colour, a label and optionally a line
// width and a dash pattern (so that a series drawn over another with the same values leaves it visible). No library,
// nothing fetched from the internet.
"use strict";

class LineChart {
  constructor(canvas, series, points) {
    this.ctx = canvas.getContext("2d");
    this.width = canvas.width;
    this.height = canvas.height;
    this.series = series.map(s => ({ ...s, values: [] }));
    this.points = points;
  }

  push(values) {
    this.series.forEach((s, i) => {
      s.values.push(values[i]);
      if (s.values.length > this.points) {
        s.values.shift();
      }
    });
    this.draw();
  }

  draw() {
    const { ctx, width, height } = this;
    const pad = 30;
    ctx.clearRect(0, 0, width, height);
    const max = Math.max(1, ...this.series.flatMap(s => s.values));
    ctx.strokeStyle = "#eee";
    ctx.fillStyle = "#888";
    ctx.font = "11px sans-serif";
    for (let g = 0; g <= 4; g++) {
      const y = height - pad - (height - 2 * pad) * g / 4;
      ctx.beginPath();
      ctx.moveTo(pad, y);
      ctx.lineTo(width - 10, y);
      ctx.stroke();
      ctx.fillText((max * g / 4).toFixed(max < 10 ? 1 : 0), 2, y + 4);
    }
    this.series.forEach((s, si) => {
      ctx.strokeStyle = s.colour;
      ctx.lineWidth = s.width || 2;
      ctx.setLineDash(s.dash || []);
      ctx.beginPath();
      s.values.forEach((v, i) => {
        const x = pad + (width - pad - 10) * i / Math.max(1, this.points - 1);
        const y = height - pad - (height - 2 * pad) * v / max;
        if (i === 0) {
          ctx.moveTo(x, y);
        } else {
          ctx.lineTo(x, y);
        }
      });
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = s.colour;
      ctx.fillText(s.label, pad + 10 + si * 140, 14);
    });
    ctx.lineWidth = 1;
  }
}
