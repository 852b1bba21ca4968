import{r as e,t}from"./chunk-FGVZ23HU-DMa_-cGz.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD-X3PZ6Hns.js";import"./diagram-DG15WDf0.js";import"./chunk-D5HYT7QG-t2qy9A9K.js";import"./chunk-F3AE6A5H-DMZFFn24.js";import"./chunk-MDAHDJXZ-CQ2JFTd4.js";import"./chunk-MPYPSXSE-CoNN1LNH.js";import"./chunk-GZTWQ64R-WlUM9wlA.js";import"./chunk-DZSZGQHW-CB7H4_MB.js";import"./chunk-ND7LMLKX-BaEaFVzV.js";import"./chunk-T47YP6PS-CFFFYpxA.js";import"./chunk-OWCVCYLK-pCCMY1lv.js";import"./chunk-QDWOWVBQ-BjYPzZUf.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};