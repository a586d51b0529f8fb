"""The relay's page: every board at a glance, one board in full on a click, the arbiter's panel.

One self-contained HTML document (no outside files, so it works on a hall's offline network).
It follows ``/api/stream`` (server-sent events: the boards and the panel on every change, and
each second) and counts the running clocks down between messages.
"""

from __future__ import annotations

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>boardctl broadcast</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f4f1ea;color:#222}
header{padding:.5em 1em;background:#2d3b2d;color:#fff;display:flex;gap:1em;align-items:baseline}
header a{color:#cfe}
main{display:flex;gap:1em;padding:1em;align-items:flex-start}
#boards{flex:3;display:grid;grid-template-columns:repeat(auto-fill,minmax(15em,1fr));gap:.6em}
.b{background:#fff;border-radius:6px;padding:.5em .7em;box-shadow:0 1px 2px #0002;cursor:pointer}
.b.silent{outline:3px solid #c80}.b.flag{outline:3px solid #c00}
.b h3{margin:0 0 .2em;font-size:1em;display:flex;justify-content:space-between}
.p{display:flex;justify-content:space-between}.p.run{font-weight:bold}
.res{font-weight:bold;color:#2d3b2d}.last{color:#555;font-size:.9em}
#side{flex:2;min-width:20em}
section{background:#fff;border-radius:6px;padding:.5em .8em;margin-bottom:1em;box-shadow:0 1px 2px #0002}
section h2{font-size:1.05em;margin:.2em 0}
ul{padding-left:1.2em;margin:.3em 0;max-height:16em;overflow:auto}
#full pre{white-space:pre-wrap}
.grid{font-family:monospace;font-size:1.4em;line-height:1.1}
</style></head><body>
<header><strong id="event">broadcast</strong><span id="status">connecting…</span>
<a href="games.pgn">games.pgn</a></header>
<main><div id="boards"></div>
<div id="side">
<section id="full"><h2>Board <span id="fname">—</span></h2><div id="fbody">Click a board.</div></section>
<section><h2>Arbiter</h2>
<h3>Flags about to fall</h3><ul id="flags"></ul>
<h3>Boards not reporting</h3><ul id="silent"></ul>
<h3>Violations</h3><ul id="violations"></ul>
<h3>Refused or ignored input</h3><ul id="notes"></ul>
<div id="counts"></div></section></div></main>
<script>
"use strict";
const PIECES={K:"\\u2654",Q:"\\u2655",R:"\\u2656",B:"\\u2657",N:"\\u2658",P:"\\u2659",
k:"\\u265a",q:"\\u265b",r:"\\u265c",b:"\\u265d",n:"\\u265e",p:"\\u265f"};
let data={boards:[],arbiter:{}},at=Date.now(),chosen=null;
const el=(t,c,x)=>{const e=document.createElement(t);if(c)e.className=c;if(x!==undefined)e.textContent=x;return e;};
function fmt(s){if(s===null||s===undefined)return "";s=Math.max(0,s);const m=Math.floor(s/60),h=Math.floor(m/60);
 const ss=String(Math.floor(s%60)).padStart(2,"0");return h?`${h}:${String(m%60).padStart(2,"0")}:${ss}`:`${m}:${ss}`;}
function left(b,side){if(!b.clock)return null;let t=b.clock[side];if(b.running===side)t-=(Date.now()-at)/1000;return t;}
function sides(b){return b.clock?Object.keys(b.clock):["white","black"];}
function flagged(b){return (data.arbiter.flags||[]).some(f=>f.board===b.board);}
function render(){
 const box=document.getElementById("boards");box.replaceChildren();
 for(const b of data.boards){
  const d=el("div","b"+(b.silent?" silent":"")+(flagged(b)?" flag":""));d.onclick=()=>{chosen=b.board;full();};
  const h=el("h3");h.append(el("span","","Board "+b.number),el("span","res",b.result&&b.result!=="*"?b.result:""));d.append(h);
  const [w,k]=sides(b);
  for(const [side,name] of [[w,b.white],[k,b.black]]){const p=el("div","p"+(b.running===side?" run":""));
   p.append(el("span","",name||"?"),el("span","clk",fmt(left(b,side))));d.append(p);}
  d.append(el("div","last",b.last?b.last+(b.silent?" · not reporting":""):(b.silent?"not reporting":"no move yet")));
  box.append(d);}
 const a=data.arbiter,fill=(id,items,f)=>{const u=document.getElementById(id);u.replaceChildren(...items.map(i=>el("li","",f(i))));};
 fill("flags",a.flags||[],f=>`board ${f.board}: ${f.side} ${fmt(f.left)}`);
 fill("silent",a.silent||[],s=>`board ${s.board}`+(s.online===false?" (off line)":"")+(s.for?`, ${Math.round(s.for)} s`:""));
 fill("violations",a.violations||[],v=>`${new Date(v.t*1000).toLocaleTimeString()} board ${v.board}, ply ${v.ply}: ${v.color} ${v.code} (${v.detail})`);
 fill("notes",a.notes||[],n=>`${new Date(n.t*1000).toLocaleTimeString()} board ${n.board}: ${n.text}`);
 document.getElementById("counts").textContent=a.counts?`messages: ${a.counts.applied} applied, ${a.counts.duplicate} duplicates or late resends, ${a.counts.refused} refused`:"";
}
function grid(fen){const rows=fen.split(" ")[0].split("/");return rows.map(r=>r.replace(/\\d+/g,n=>".".repeat(+n))
 .split("").map(c=>PIECES[c]&&rows.length===8?PIECES[c]:c).join(" ")).join("\\n");}
async function full(){if(!chosen)return;const r=await fetch("api/boards/"+encodeURIComponent(chosen));if(!r.ok)return;
 const b=await r.json();document.getElementById("fname").textContent=b.number+": "+b.white+" – "+b.black;
 const body=document.getElementById("fbody");body.replaceChildren();
 if(b.fen){const g=el("pre","grid",grid(b.fen));body.append(g);}
 body.append(el("pre","",b.pgn||"no game yet"));}
function connect(){const s=new EventSource("api/stream");
 s.onopen=()=>{document.getElementById("status").textContent="live";};
 s.onerror=()=>{document.getElementById("status").textContent="reconnecting…";};
 s.onmessage=e=>{const m=JSON.parse(e.data);data=m;at=Date.now();document.getElementById("event").textContent=m.event;
  render();if(chosen&&m.changed&&m.changed.includes(chosen))full();};}
setInterval(render,1000);
connect();
</script></body></html>
"""
