import{r as e,t}from"./chunk-FGVZ23HU-_qqa7xwv.js";import"./chunk-KTR4FSNJ-DSr3q0Xy.js";import"./chunk-CNRTWJTD-BknH_ol6.js";import"./diagram-BgI2JHEN.js";import"./chunk-D5HYT7QG-CRTeGkZr.js";import"./chunk-F3AE6A5H-DFnH_3GX.js";import"./chunk-MDAHDJXZ-xpVbtiPV.js";import"./chunk-MPYPSXSE-S_xjBtLN.js";import"./chunk-GZTWQ64R-23nLbV6N.js";import"./chunk-DZSZGQHW-ettjFsFC.js";import"./chunk-ND7LMLKX-DoR66am7.js";import"./chunk-T47YP6PS-M_qdOCdu.js";import"./chunk-OWCVCYLK-DqNPAHqW.js";import"./chunk-QDWOWVBQ-2HCkbpYk.js";import"./d3-selection-dCQX2BNo.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({styles:n(t=>`${e(t)}
  .swimlane.cluster:not([data-color-id]) rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};