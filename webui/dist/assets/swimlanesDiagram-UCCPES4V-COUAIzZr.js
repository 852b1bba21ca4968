import{r as e,t}from"./chunk-FGVZ23HU-NDlz4B0l.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD-BEapK9A2.js";import"./diagram-CTr--nJ-.js";import"./chunk-D5HYT7QG-B_x-t4RI.js";import"./chunk-F3AE6A5H-CiBRAphZ.js";import"./chunk-MDAHDJXZ-BxuYok9M.js";import"./chunk-MPYPSXSE-BbVMZ3BQ.js";import"./chunk-GZTWQ64R-ClGIMt53.js";import"./chunk-DZSZGQHW-DKTT6M-m.js";import"./chunk-ND7LMLKX-BwwXAY7R.js";import"./chunk-T47YP6PS-h5UXIZwL.js";import"./chunk-OWCVCYLK-BIBC5A8R.js";import"./chunk-QDWOWVBQ-CeKzLGNM.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};